package model

import (
	"encoding/json"
	"fmt"
)

// Amdahl is the runtime model F(n) = A + C/n (Amdahl's law in seconds): A is
// the serial part that no number of VMs shortens, C the part that divides
// evenly among them. Both are non-negative; F(1) = A + C.
type Amdahl struct {
	A float64 `json:"a"`
	C float64 `json:"c"`
}

var _ Model = Amdahl{}

// Seconds returns A + C/n, and 0 for n ≤ 0.
func (m Amdahl) Seconds(n int) float64 {
	if n <= 0 {
		return 0
	}
	return m.A + m.C/float64(n)
}

// Kind is KindAmdahl.
func (Amdahl) Kind() Kind { return KindAmdahl }

// String shows the law for people: "20 + 600/n".
func (m Amdahl) String() string { return fmt.Sprintf("%.4g + %.4g/n", m.A, m.C) }

// Validate reports a model that cannot describe a runtime: A and C finite and
// non-negative, A + C positive.
func (m Amdahl) Validate() error {
	if err := within("model.a", m.A, true); err != nil {
		return err
	}
	if err := within("model.c", m.C, true); err != nil {
		return err
	}
	if err := within("F(1) = model.a + model.c", m.A+m.C, false); err != nil {
		return err
	}
	return nil
}

// MarshalJSON writes {"kind": "amdahl", "a": …, "c": …}.
func (m Amdahl) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Kind Kind    `json:"kind"`
		A    float64 `json:"a"`
		C    float64 `json:"c"`
	}{KindAmdahl, m.A, m.C})
}

// AmdahlFit is an Amdahl model fitted to runs, with the standard errors of A
// and C (zero when pinned at 0 or with no degree of freedom left).
type AmdahlFit struct {
	Amdahl
	SEA, SEC float64
	Points   int
}

// FitAmdahl fits F(n) = a + c/n with a, c ≥ 0 to observed (nodes, seconds)
// pairs by non-negative least squares on relative error. It needs two
// distinct node counts.
func FitAmdahl(nodes, seconds []float64) (AmdahlFit, error) {
	if err := needRuns("amdahl", 2, nodes, seconds); err != nil {
		return AmdahlFit{}, err
	}
	f, err := fitLinear(func(n float64) []float64 { return []float64{1, 1 / n} }, nodes, seconds)
	if err != nil {
		return AmdahlFit{}, err
	}
	return AmdahlFit{Amdahl: Amdahl{A: f.Theta[0], C: f.Theta[1]}, SEA: f.SE[0], SEC: f.SE[1], Points: len(nodes)}, nil
}
