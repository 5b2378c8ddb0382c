package model

import (
	"fmt"
	"math"
)

// Thresholds decide a job's class from measurements at a reference size (seed
// 003, section 3): CPU-intensive above 60 % average CPU utilisation,
// I/O-intensive above 100 MB/s aggregate I/O, both measured on 6 VMs. The zero
// value means those defaults.
type Thresholds struct {
	// CPUUtil is the utilisation (0–1) above which a job is CPU-intensive; default 0.6.
	CPUUtil float64 `json:"cpu_util"`
	// IOMBps is the aggregate I/O rate in MB/s (10⁶ bytes) above which a job is
	// I/O-intensive; default 100.
	IOMBps float64 `json:"io_mbps"`
	// ReferenceNodes is the VM count the measurements are taken at; default 6.
	ReferenceNodes int `json:"reference_nodes"`
}

// DefaultThresholds are the packing paper's: 60 % CPU, 100 MB/s, at 6 VMs.
func DefaultThresholds() Thresholds {
	return Thresholds{CPUUtil: 0.6, IOMBps: 100, ReferenceNodes: 6}
}

// WithDefaults fills zero fields with the packing paper's values.
func (t Thresholds) WithDefaults() Thresholds {
	d := DefaultThresholds()
	setDefault(&t.CPUUtil, d.CPUUtil)
	setDefault(&t.IOMBps, d.IOMBps)
	setDefault(&t.ReferenceNodes, d.ReferenceNodes)
	return t
}

// Validate rejects thresholds that cannot classify anything sensibly.
func (t Thresholds) Validate() error {
	switch {
	case math.IsNaN(t.CPUUtil) || t.CPUUtil < 0 || t.CPUUtil > 1:
		return fmt.Errorf("thresholds: cpu_util must lie in [0, 1], got %v", t.CPUUtil)
	case math.IsNaN(t.IOMBps) || math.IsInf(t.IOMBps, 0) || t.IOMBps < 0:
		return fmt.Errorf("thresholds: io_mbps must be finite and non-negative, got %v", t.IOMBps)
	case t.ReferenceNodes < 1:
		return fmt.Errorf("thresholds: reference_nodes must be at least 1, got %d", t.ReferenceNodes)
	}
	return nil
}

// Classify returns the class of a job whose measured average CPU utilisation
// (0–1) and aggregate I/O rate (MB/s) at the reference size are given. The
// comparisons are strict, as the seed says "above".
func (t Thresholds) Classify(cpuUtil, ioMBps float64) (cpuIntensive, ioIntensive bool) {
	return cpuUtil > t.CPUUtil, ioMBps > t.IOMBps
}
