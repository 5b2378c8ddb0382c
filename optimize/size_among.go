package optimize

import (
	"errors"
	"fmt"
	"time"

	"github.com/packer-sched/packer/model"
)

// SizeOption is one candidate cluster of SizeAmong and its answer: Result,
// or Err when the deadline is out of its reach (ErrUnreachable or
// ErrJobTooLong, wrapped).
type SizeOption struct {
	Cluster model.Cluster
	Result  *SizeResult
	Err     error
}

// SizeChoice is SizeAmong's answer: every candidate in the order given, and
// the index of the best.
type SizeChoice struct {
	Options []SizeOption
	Best    int
}

// SizeAmong sizes the workload for the deadline on each candidate cluster
// (their Hosts ignored), as Size does, and picks the best: the fewest hosts
// (Result.Hosts); on a tie the fewer disks per host, then the lower Lo,
// then the earlier candidate. A Budget is shared equally among the
// candidates. Progress, if set, sees every candidate's points in turn.
//
// A candidate whose deadline is out of reach is kept with its error; when
// every candidate's is, the error is the last one's, naming its disks per
// host (with one candidate, Size's error as it is). Any other error (bad
// settings, deadline or workload) is returned at once.
func SizeAmong(w *model.Workload, candidates []model.Cluster, deadline float64, set *SizeSettings) (*SizeChoice, error) {
	if len(candidates) == 0 {
		return nil, &SettingError{Field: "candidates", Value: 0, Rule: "must hold at least one cluster"}
	}
	var each SizeSettings
	if set != nil {
		each = *set
	}
	each.Budget /= time.Duration(len(candidates))
	choice := &SizeChoice{Best: -1}
	var last error
	for _, c := range candidates {
		res, err := Size(w, c, deadline, &each)
		if err != nil && !errors.Is(err, ErrUnreachable) && !errors.Is(err, ErrJobTooLong) {
			return nil, err
		}
		switch {
		case err != nil && len(candidates) == 1:
			return nil, err
		case err != nil:
			last = fmt.Errorf("no candidate cluster meets the deadline; with %d disks per host: %w", c.WithDefaults().DisksPerHost, err)
		}
		choice.Options = append(choice.Options, SizeOption{Cluster: c.WithDefaults(), Result: res, Err: err})
		if res != nil && (choice.Best < 0 || better(res, choice.Options[choice.Best].Result)) {
			choice.Best = len(choice.Options) - 1
		}
	}
	if choice.Best < 0 {
		return nil, last
	}
	return choice, nil
}

// better reports whether answer a beats b: fewer hosts, then fewer disks
// per host, then a lower Lo.
func better(a, b *SizeResult) bool {
	switch {
	case a.Hosts != b.Hosts:
		return a.Hosts < b.Hosts
	case a.Cluster.DisksPerHost != b.Cluster.DisksPerHost:
		return a.Cluster.DisksPerHost < b.Cluster.DisksPerHost
	}
	return a.Lo < b.Lo
}
