package experiments

import (
	"math"
	"reflect"
	"testing"

	"github.com/packer-sched/packer/sim"
)

func TestTyrexSmallFraction(t *testing.T) {
	// With p small jobs of mean 60 and big ones of mean m₂ = (M − 60p)/(1 − p),
	// E[S²] = 2(p·60² + (1 − p)·m₂²) must be (1 + c)·M². For c = 4 and M =
	// 760 the root is near p = 0.64: (760 − 38.4)²/0.36 = 1 446 000, ·2 +
	// 2·0.64·3600 = 2 896 608 ≈ 5·760² = 2 888 000.
	for _, c := range []float64{4, 10, 20} {
		for _, mean := range []float64{760, 1500, 3680} {
			p := TyrexSmallFraction(c, mean)
			m2 := (mean - 60*p) / (1 - p)
			got := 2 * (p*3600 + (1-p)*m2*m2) / (mean * mean)
			if math.Abs(got-(1+c)) > 1e-6 {
				t.Errorf("c = %v, mean %v: p = %v gives E[S²]/mean² = %v, want %v", c, mean, p, got, 1+c)
			}
		}
	}
	if p := TyrexSmallFraction(4, 760); math.Abs(p-0.64) > 0.01 {
		t.Errorf("small fraction %v at c = 4 and mean 760, want about 0.64", p)
	}
}

func TestTyrexWorkload(t *testing.T) {
	// Over many jobs the realised squared CV approaches the target (heavy
	// tails converge slowly: 20 % tolerance at 20 000 jobs) and the mean
	// Table II's CPU time per job, over 60 % of jobs are tiny or short (the
	// paper's "more than 60 %"), and arrivals are in order.
	for _, v := range []TyrexVariability{HVW, MVW, LVW} {
		w, err := Tyrex(v, 20000, 0.7, 1)
		if err != nil {
			t.Fatal(err)
		}
		c, _ := v.SCV()
		if got := sim.SCV(JobSizes(w)); math.Abs(got-c)/c > 0.2 {
			t.Errorf("%s: squared CV %.2f, want %v ± 20 %%", v, got, c)
		}
		short, sum := 0, 0.0
		for i, size := range JobSizes(w) {
			sum += size
			if size < 600 {
				short++
			}
			if i > 0 && w.Jobs[i].Arrival < w.Jobs[i-1].Arrival {
				t.Fatalf("%s: job %d arrives before job %d", v, i, i-1)
			}
		}
		if frac := float64(short) / float64(len(w.Jobs)); frac < 0.6 {
			t.Errorf("%s: %.2f of jobs are tiny or short (under 10 minutes), want over 0.6", v, frac)
		}
		if mean := sum / float64(len(w.Jobs)); math.Abs(mean-v.MeanSize())/v.MeanSize() > 0.1 {
			t.Errorf("%s: mean size %.0f, want %v ± 10 %%", v, mean, v.MeanSize())
		}
	}
	a, _ := Tyrex(HVW, 300, 0.7, 7)
	b, _ := Tyrex(HVW, 300, 0.7, 7)
	if !reflect.DeepEqual(a, b) {
		t.Error("same seed, different workloads")
	}
	if _, err := Tyrex("XVW", 300, 0.7, 1); err == nil {
		t.Error("unknown workload accepted")
	}
	if _, err := Tyrex(HVW, 300, 1.2, 1); err == nil {
		t.Error("load 1.2 accepted")
	}
}

func TestHybSWorkloads(t *testing.T) {
	w := HybSExp1(3)
	if len(w.Jobs) != 21 {
		t.Fatalf("%d jobs, want 21", len(w.Jobs))
	}
	count := map[string]int{}
	for _, j := range w.Jobs {
		name := j.Name[3:]
		count[name]++
		for _, ty := range hybsTypes {
			if ty.name == name && (j.Maps.N() < ty.minMaps || j.Maps.N() > ty.maxMaps) {
				t.Errorf("%s: %d maps outside Table 1's %d–%d", j.Name, j.Maps.N(), ty.minMaps, ty.maxMaps)
			}
		}
	}
	if count["Grid"] != 7 || count["TeraSort"] != 7 || count["WordCount"] != 7 {
		t.Errorf("types %v, want 7 each", count)
	}
	w = HybSExp2(3)
	if len(w.Jobs) != 95 {
		t.Fatalf("%d jobs, want 95", len(w.Jobs))
	}
	for _, j := range w.Jobs {
		if n := j.Maps.N(); n < 50 || n > 148 {
			t.Errorf("%s: %d maps, want 50–148", j.Name, n)
		}
		for _, d := range j.Maps.Durations {
			if d < 4 || d > 6 {
				t.Errorf("%s: map of %v s, want 4–6", j.Name, d)
			}
		}
	}
	for _, w := range []*sim.Workload{HybSExp1(1), HybSExp2(1), DPQueues(10, 4, 1), DelaySmallJobs(1)} {
		if err := w.Validate(); err != nil {
			t.Errorf("%s: %v", w.Name, err)
		}
	}
	b, period := DPBoost(1)
	if err := b.Validate(); err != nil || len(b.Jobs) != 100 || period <= 0 {
		t.Errorf("dp-boost: %v, %d jobs, period %v", err, len(b.Jobs), period)
	}
}
