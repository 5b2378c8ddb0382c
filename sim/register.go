package sim

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"unicode"
)

// ErrPolicyNameTaken is the error of RegisterPolicy for a name a built-in or
// an earlier registered policy has.
var ErrPolicyNameTaken = errors.New("policy name taken")

// addedPolicies is the policies added by RegisterPolicy, in the order they
// were added; the lock guards the list, which BuiltinPolicies precedes in
// the registry (policies).
var addedPolicies struct {
	sync.RWMutex
	list []PolicyInfo
}

// RegisterPolicy adds a policy written outside this package to the registry,
// so that ParsePolicy builds it by name and LookupPolicy, PolicyNames and
// "unknown policy" errors know it, after the built-in ones. The name selects
// it as a built-in's does: info.Name alone, or info.Name:P for each written
// form P in info.Params. build makes a fresh Policy, whose Name should be
// info.Name, for a name's parameter (the text after the colon, "" for the
// bare name) and the options; it answers false for a parameter it does not
// take, which ParsePolicy reports as ErrUnknownPolicy. (PolicyInfo's own
// builder is unexported, so it is given here.)
//
// It refuses a nil build, an empty name, a name with a colon, a comma or a
// space (lists of names are split at commas), an empty parameter form, a
// plan replay (Replay or Barrier: those are built from a plan) and, with
// ErrPolicyNameTaken, a name already registered. It is safe for concurrent
// use; a program registers its policies once, typically in an init
// function, since a registration lasts for the process.
func RegisterPolicy(info PolicyInfo, build func(param string, o *PolicyOptions) (Policy, bool)) error {
	if err := checkPolicyInfo(info, build); err != nil {
		return err
	}
	info.Params = slices.Clone(info.Params)
	info.build = build
	addedPolicies.Lock()
	defer addedPolicies.Unlock()
	for _, p := range BuiltinPolicies {
		if p.Name == info.Name {
			return fmt.Errorf("sim: register policy %q: %w by a built-in policy", info.Name, ErrPolicyNameTaken)
		}
	}
	for _, p := range addedPolicies.list {
		if p.Name == info.Name {
			return fmt.Errorf("sim: register policy %q: %w by a registered policy", info.Name, ErrPolicyNameTaken)
		}
	}
	addedPolicies.list = append(addedPolicies.list, info)
	return nil
}

// checkPolicyInfo is RegisterPolicy's checks of the entry alone.
func checkPolicyInfo(info PolicyInfo, build func(string, *PolicyOptions) (Policy, bool)) error {
	switch {
	case build == nil:
		return fmt.Errorf("sim: register policy %q: no builder", info.Name)
	case info.Name == "":
		return errors.New("sim: register policy: empty name")
	case strings.ContainsAny(info.Name, ":,") || strings.IndexFunc(info.Name, unicode.IsSpace) >= 0:
		return fmt.Errorf("sim: register policy %q: a name must not contain a colon, a comma or a space", info.Name)
	case info.Replay || info.Barrier:
		return fmt.Errorf("sim: register policy %q: plan replays (Replay, Barrier) cannot be registered", info.Name)
	}
	for _, f := range info.Params {
		if f == "" {
			return fmt.Errorf("sim: register policy %q: empty parameter form in Params", info.Name)
		}
	}
	return nil
}

// policies is the registry's entries: BuiltinPolicies, then the registered
// ones in the order they were added.
func policies() []PolicyInfo {
	addedPolicies.RLock()
	defer addedPolicies.RUnlock()
	if len(addedPolicies.list) == 0 {
		return BuiltinPolicies
	}
	n := len(BuiltinPolicies)
	return append(BuiltinPolicies[:n:n], addedPolicies.list...)
}
