package model

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// Observation is one measured run of a job: its wall time on a number of VMs
// and, when known, its CPU utilisation and aggregate I/O rate. Profiles keep
// every observation, failed runs included, so a model can be re-fitted or
// audited later.
type Observation struct {
	// Nodes is the number of VMs (or nodes) the job ran on.
	Nodes int `json:"nodes"`
	// Repeat numbers the runs at one node count from 1; 0 when unknown.
	Repeat int `json:"repeat,omitempty"`
	// Seconds is the wall time of the run.
	Seconds float64 `json:"seconds"`
	// CPUUtil is the CPU seconds of the run divided by wall × nodes × vCPUs
	// per node, in [0, 1] for a job that stays within its share; nil when
	// not measured.
	CPUUtil *float64 `json:"cpu_util,omitempty"`
	// IOMBps is the bytes read plus written per second of wall time, in MB/s
	// (10⁶ bytes); nil when not measured.
	IOMBps *float64 `json:"io_mbps,omitempty"`
	// CPUSeconds, ReadBytes and WriteBytes are the raw counts behind CPUUtil
	// and IOMBps when packer measured the run itself.
	CPUSeconds float64 `json:"cpu_seconds,omitempty"`
	ReadBytes  int64   `json:"read_bytes,omitempty"`
	WriteBytes int64   `json:"write_bytes,omitempty"`
	// Failed marks a run that did not complete (non-zero exit, killed); a
	// failed run is kept for the record but never fitted.
	Failed bool `json:"failed,omitempty"`
	// Error says why the run failed, with the tail of its standard error.
	Error string `json:"error,omitempty"`
}

// Profile records how a job's model and class were obtained: the runs, the
// quality of the fit and the measurements the class was decided on. A job
// with a Profile is still an ordinary workload job; planners ignore it.
type Profile struct {
	Observations []Observation `json:"observations"`
	// R2 and ResidualSE are the fit's, see Fit.
	R2         float64 `json:"r2"`
	ResidualSE float64 `json:"residual_se"`
	// AInterval and BInterval are confidence intervals for a and b at
	// IntervalLevel; absent when the fit had no degrees of freedom left.
	IntervalLevel float64     `json:"interval_level,omitempty"`
	AInterval     *[2]float64 `json:"a_interval,omitempty"`
	BInterval     *[2]float64 `json:"b_interval,omitempty"`
	// CPUUtil and IOMBps are the measurements at the reference size the
	// class was decided on; nil when the observations had none.
	CPUUtil *float64 `json:"cpu_util_at_reference,omitempty"`
	IOMBps  *float64 `json:"io_mbps_at_reference,omitempty"`
	// ReferenceMeasured is false when the reference size was not among the
	// measured node counts and the values were interpolated (or, outside the
	// measured range, taken from the nearest node count).
	ReferenceMeasured bool       `json:"reference_measured"`
	Thresholds        Thresholds `json:"thresholds"`
	// Warnings are the doubts the profiler raised about the model.
	Warnings []string `json:"warnings,omitempty"`
	// Choice says why the job's model is not the power law, with every
	// form's leave-one-out errors; absent when the power law was kept (R2,
	// ResidualSE and the intervals above are the power law's either way).
	Choice *ModelChoice `json:"model_choice,omitempty"`
}

// ModelChoice records how a job's model form was chosen (ChooseModel).
type ModelChoice struct {
	Chosen      Kind        `json:"chosen"`
	Reason      string      `json:"reason"`
	LeaveOneOut []FormError `json:"leave_one_out"`
}

// FormError is one form's leave-one-node-count-out relative errors; Median
// and Worst are absent when the form could not be judged, and Refused says why.
type FormError struct {
	Kind    Kind     `json:"kind"`
	Median  *float64 `json:"median,omitempty"`
	Worst   *float64 `json:"worst,omitempty"`
	Refused string   `json:"refused,omitempty"`
}

// Intervals returns two-sided confidence intervals at the given level (for
// example 0.95) for A and B, from Student's t with Points − 2 degrees of
// freedom on the log-scale regression:
//
//	ln A ± t·SELogA  →  [A·e^(−t·SELogA), A·e^(t·SELogA)]
//	B ± t·SEB
//
// ok is false when the fit had two points or fewer (no residual left to
// estimate the noise from) or the level is not in (0, 1).
func (f Fit) Intervals(level float64) (a, b [2]float64, ok bool) {
	dof := f.Points - 2
	if dof < 1 || !(level > 0 && level < 1) {
		return a, b, false
	}
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(dof)}.Quantile(0.5 + level/2)
	a = [2]float64{f.A * math.Exp(-t*f.SELogA), f.A * math.Exp(t*f.SELogA)}
	b = [2]float64{f.B - t*f.SEB, f.B + t*f.SEB}
	return a, b, true
}

// Validate checks an observation's values; the message names the field.
func (o Observation) Validate() error {
	switch {
	case o.Nodes < 1:
		return fmt.Errorf("nodes must be at least 1, got %d", o.Nodes)
	case !o.Failed && (!(o.Seconds > 0) || math.IsInf(o.Seconds, 0)):
		return fmt.Errorf("seconds must be finite and positive, got %v", o.Seconds)
	case o.CPUUtil != nil && !finiteNonNegative(*o.CPUUtil):
		return fmt.Errorf("cpu_util must be finite and non-negative, got %v", *o.CPUUtil)
	case o.IOMBps != nil && !finiteNonNegative(*o.IOMBps):
		return fmt.Errorf("io_mbps must be finite and non-negative, got %v", *o.IOMBps)
	}
	return nil
}

// finiteNonNegative is false for NaN, infinities and negative numbers.
func finiteNonNegative(v float64) bool { return v >= 0 && !math.IsInf(v, 1) }
