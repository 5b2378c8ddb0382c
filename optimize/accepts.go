package optimize

import (
	"fmt"

	"github.com/packer-sched/packer/model"
)

// Rejection says why a method cannot take a problem, in words a person can
// act on: "60 jobs, exact takes at most 18". It wraps ErrTooManyJobs, so
// errors.Is finds the same sentinel Solve's error carries.
type Rejection struct {
	Method Method
	Jobs   int // the problem's jobs
	Max    int // the most the method takes
}

func (r *Rejection) Error() string {
	return fmt.Sprintf("%d jobs, %s takes at most %d", r.Jobs, r.Method, r.Max)
}

// Unwrap returns ErrTooManyJobs.
func (r *Rejection) Unwrap() error { return ErrTooManyJobs }

// Accepts tells, before any work, whether Solve can plan p with method: nil,
// a *Rejection when p is too large for it (exact past MaxExactJobs), or an
// error wrapping ErrUnknownMethod. A caller that runs several methods (the
// command line's compare) skips the rejected ones instead of failing after
// the others have run. auto, pso, columns, pair and sequential take any size.
func Accepts(method Method, p *model.Problem) error {
	if _, err := ParseMethod(string(method)); err != nil {
		return fmt.Errorf("optimize: %w", err)
	}
	if method == MethodExact && len(p.Jobs) > MaxExactJobs {
		return &Rejection{Method: method, Jobs: len(p.Jobs), Max: MaxExactJobs}
	}
	return nil
}
