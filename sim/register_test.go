package sim

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
)

// namedFIFO is FIFO under another name: a policy from outside, as far as the
// registry can tell.
type namedFIFO struct {
	FIFO
	name string
}

func (p *namedFIFO) Name() string { return p.name }

// buildNamed builds namedFIFO called name, or name:param for a parameter of
// digits.
func buildNamed(name string) func(string, *PolicyOptions) (Policy, bool) {
	return func(param string, _ *PolicyOptions) (Policy, bool) {
		if strings.Trim(param, "0123456789") != "" {
			return nil, false
		}
		if param != "" {
			name += ":" + param
		}
		return &namedFIFO{name: name}, true
	}
}

// forget removes the named registrations when the test ends, so that it can
// run again (-count) and leaves the registry as it found it.
func forget(t *testing.T, names ...string) {
	t.Cleanup(func() {
		addedPolicies.Lock()
		defer addedPolicies.Unlock()
		addedPolicies.list = slices.DeleteFunc(addedPolicies.list, func(p PolicyInfo) bool {
			return slices.Contains(names, p.Name)
		})
	})
}

// TestRegisterPolicy: a registered policy is parsed, looked up and listed
// as a built-in one is, after the built-ins.
func TestRegisterPolicy(t *testing.T) {
	forget(t, "outside-a", "outside-b")
	params := []string{"N"}
	if err := RegisterPolicy(PolicyInfo{Name: "outside-a", Params: params, Usage: "FIFO, renamed"}, buildNamed("outside-a")); err != nil {
		t.Fatal(err)
	}
	params[0] = "changed" // the registry keeps its own copy
	if err := RegisterPolicy(PolicyInfo{Name: "outside-b"}, buildNamed("outside-b")); err != nil {
		t.Fatal(err)
	}
	names := PolicyNames()
	if got, want := names[len(names)-3:], []string{"outside-a", "outside-a:N", "outside-b"}; !slices.Equal(got, want) {
		t.Fatalf("PolicyNames ends %q, want %q", got, want)
	}
	info, param, err := LookupPolicy("outside-a:12")
	if err != nil || info.Name != "outside-a" || info.Usage != "FIFO, renamed" || param != "12" {
		t.Fatalf("LookupPolicy(outside-a:12) = %+v, %q, %v", info, param, err)
	}
	for _, c := range []struct{ name, want string }{
		{"outside-a", "outside-a"}, {"outside-a:12", "outside-a:12"}, {"outside-b", "outside-b"},
	} {
		p, err := ParsePolicy(c.name, nil)
		if err != nil || p.Name() != c.want {
			t.Errorf("ParsePolicy(%q) = %v, %v; want a policy named %q", c.name, p, err, c.want)
		}
	}
	// Refused by the builder (a parameter not of digits), by LookupPolicy
	// (an empty parameter) and misspelt: ErrUnknownPolicy, listing the
	// registered names and suggesting the nearest.
	for _, c := range []struct{ name, hint string }{
		{"outside-a:x", "outside-a:N"}, {"outside-b:", "outside-b"}, {"outside-c", "outside-a"},
	} {
		_, err := ParsePolicy(c.name, nil)
		if !errors.Is(err, ErrUnknownPolicy) || !strings.Contains(err.Error(), "outside-a:N, outside-b") ||
			!strings.Contains(err.Error(), fmt.Sprintf("did you mean %q?", c.hint)) {
			t.Errorf("ParsePolicy(%q): %v; want ErrUnknownPolicy listing outside-a:N, outside-b and suggesting %q", c.name, err, c.hint)
		}
	}
	if _, _, err := LookupPolicy("outside-b:1"); !errors.Is(err, ErrUnknownPolicy) {
		t.Errorf("LookupPolicy(outside-b:1), a parameter outside-b does not take: %v, want ErrUnknownPolicy", err)
	}
	// ParsePolicies (Compare's list) reaches it through the same lookup.
	if es, err := ParsePolicies([]string{"fifo", "outside-b"}, nil); err != nil || es[1].Policy.Name() != "outside-b" {
		t.Errorf("ParsePolicies(fifo, outside-b) = %v, %v", es, err)
	}
}

// TestRegisterPolicyRefuses: every entry RegisterPolicy refuses, and the
// registry unchanged after each.
func TestRegisterPolicyRefuses(t *testing.T) {
	forget(t, "outside-taken")
	if err := RegisterPolicy(PolicyInfo{Name: "outside-taken"}, buildNamed("outside-taken")); err != nil {
		t.Fatal(err)
	}
	before := PolicyNames()
	build := buildNamed("x")
	for _, c := range []struct {
		what  string
		info  PolicyInfo
		build func(string, *PolicyOptions) (Policy, bool)
		taken bool
	}{
		{what: "no builder", info: PolicyInfo{Name: "outside-nil"}},
		{what: "empty name", info: PolicyInfo{}, build: build},
		{what: "colon", info: PolicyInfo{Name: "outside:1"}, build: build},
		{what: "comma", info: PolicyInfo{Name: "outside,fifo"}, build: build},
		{what: "space", info: PolicyInfo{Name: "outside fifo"}, build: build},
		{what: "non-breaking space", info: PolicyInfo{Name: "outside\u00a0fifo"}, build: build},
		{what: "replay", info: PolicyInfo{Name: "outside-plan", Replay: true}, build: build},
		{what: "barrier", info: PolicyInfo{Name: "outside-plan", Barrier: true}, build: build},
		{what: "empty parameter form", info: PolicyInfo{Name: "outside-p", Params: []string{"N", ""}}, build: build},
		{what: "a built-in's name", info: PolicyInfo{Name: "fair"}, build: build, taken: true},
		{what: "a plan replay's name", info: PolicyInfo{Name: "plan"}, build: build, taken: true},
		{what: "a registered name", info: PolicyInfo{Name: "outside-taken"}, build: build, taken: true},
	} {
		err := RegisterPolicy(c.info, c.build)
		if err == nil {
			forget(t, c.info.Name)
			t.Errorf("%s: registered", c.what)
			continue
		}
		if errors.Is(err, ErrPolicyNameTaken) != c.taken {
			t.Errorf("%s: error %v; ErrPolicyNameTaken %v, want %v", c.what, err, !c.taken, c.taken)
		}
		if !strings.HasPrefix(err.Error(), "sim: register policy") {
			t.Errorf("%s: error %q does not say what failed", c.what, err)
		}
		if after := PolicyNames(); !slices.Equal(after, before) {
			t.Errorf("%s: names %q after a refusal, want %q", c.what, after, before)
		}
	}
}

// TestRegisterPolicyConcurrent registers from many goroutines while others
// parse and list (run with -race): each distinct name once, and of eight
// registrations of one name exactly one succeeds.
func TestRegisterPolicyConcurrent(t *testing.T) {
	const n = 8
	var names []string
	for i := range n {
		names = append(names, fmt.Sprintf("outside-%d", i))
	}
	forget(t, append(names, "outside-shared")...)
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() {
			if err := RegisterPolicy(PolicyInfo{Name: names[i]}, buildNamed(names[i])); err != nil {
				t.Error(err)
			}
			errs[i] = RegisterPolicy(PolicyInfo{Name: "outside-shared"}, buildNamed("outside-shared"))
		})
		wg.Go(func() {
			if _, err := ParsePolicy("fair:2", nil); err != nil {
				t.Error(err)
			}
			_ = PolicyNames()
		})
	}
	wg.Wait()
	won := 0
	for _, err := range errs {
		switch {
		case err == nil:
			won++
		case !errors.Is(err, ErrPolicyNameTaken):
			t.Errorf("outside-shared: %v, want ErrPolicyNameTaken", err)
		}
	}
	if won != 1 {
		t.Errorf("outside-shared registered %d times, want once", won)
	}
	for _, name := range append(names, "outside-shared") {
		if p, err := ParsePolicy(name, nil); err != nil || p.Name() != name {
			t.Errorf("ParsePolicy(%q) = %v, %v", name, p, err)
		}
	}
}
