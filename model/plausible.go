package model

import (
	"fmt"
	"strconv"
)

// Plausibility bounds. A value past one of them is a slip (a unit, an
// exponent, a digit too many), not a cluster or a job packer could plan:
// `b: -1e308` or `--disks 100000` would otherwise be planned, or fill the
// memory, in earnest. Each is far beyond what exists.
const (
	// MaxDisksPerHost bounds k: the densest storage servers hold about 100
	// drives, and each disk carries a VM of its own.
	MaxDisksPerHost = 128
	// MaxCoresPerHost bounds a host's cores: the largest single machines
	// have a few thousand.
	MaxCoresPerHost = 4096
	// MaxMemoryMiBPerHost bounds a host's memory: 64 TiB, twice the largest
	// single machines'.
	MaxMemoryMiBPerHost = 64 << 20
	// MaxAlpha bounds the overcommit penalty: past 100 times slower no plan
	// overcommits anyway (the packing paper measured 1.3).
	MaxAlpha = 100.0
	// MinJobSeconds and MaxJobSeconds bound a job's runtime alone on one VM
	// (F(1)), and every number of seconds a model is made of: a
	// millisecond, and about 300 years (a job of 3,000 VMs for 10 hours is
	// 1.1e8 s on one).
	MinJobSeconds = 1e-3
	MaxJobSeconds = 1e10
	// MaxExponent bounds |b| of a power law a·n^b: at 4, doubling the VMs
	// changes the runtime 16-fold, which no measured job does (perfect
	// speedup is b = −1).
	MaxExponent = 4.0
)

// SettingError is a value of a cluster (a command-line flag, or a plan
// document's field) that the rules refuse, naming the field so that a
// caller can point at what set it. Its message is one line:
// "cluster: disks_per_host must be at most 128, got 100000".
type SettingError struct {
	// Input names what the field belongs to: "cluster".
	Input string
	// Field is the Go name of the field, e.g. "DisksPerHost"; Name is the
	// file's, e.g. "disks_per_host".
	Field, Name string
	// Value is the value refused.
	Value any
	// Rule is what the value must be, e.g. "must be at most 128".
	Rule string
}

func (e *SettingError) Error() string {
	return fmt.Sprintf("%s: %s %s, got %v", e.Input, e.Name, e.Rule, e.Value)
}

// within checks a model's number of seconds: finite, at most MaxJobSeconds
// and at least MinJobSeconds, or, for a part of a sum (partOK), at least 0:
// a fit's term may be as small as it likes, its F(1) may not.
func within(field string, v float64, partOK bool) error {
	low := MinJobSeconds
	if partOK {
		low = 0
	}
	if finite(v) && v <= MaxJobSeconds && v >= low {
		return nil
	}
	return fmt.Errorf("%s must be between %s and %s seconds, got %v", field, g(low), g(MaxJobSeconds), v)
}

// g writes a bound as people read it: 0.001, 1e+10.
func g(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
