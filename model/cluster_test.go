package model

import (
	"errors"
	"math"
	"strings"
	"testing"
)

func TestClusterDerived(t *testing.T) {
	c := PaperCluster()
	// The packing paper, section 6: 9 hosts × 2 disks = 18 primary VMs; r = 2 gives one
	// extra VM per host, 9 in all; 4 cores / 2 = 2 vCPUs per VM.
	if c.PrimaryVMs() != 18 || c.MaxExtraVMs() != 9 || c.ExtrasPerHost() != 1 || c.VCPUsPerVM() != 2 {
		t.Errorf("paper cluster: N %d, extras %d, per host %d, vCPUs %d", c.PrimaryVMs(), c.MaxExtraVMs(), c.ExtrasPerHost(), c.VCPUsPerVM())
	}
	// 8192 MiB over 2 primary + 1 extra VM.
	if c.MemoryMiBPerVM() != 2730 {
		t.Errorf("memory per VM %d, want 2730", c.MemoryMiBPerVM())
	}
	// k = 3, r = 2: one group of two host VMs per machine, so ⌊3/2⌋ = 1 extra
	// per host, 4 on four hosts; 7 host VMs carry ⌊7/2⌋ = 3.
	c = Cluster{Hosts: 4, DisksPerHost: 3, ExtraRatio: 2, Alpha: 1.3, CoresPerHost: 6, MemoryMiBPerHost: 1}
	if c.MaxExtraVMs() != 4 || c.ExtrasFor(7) != 3 || c.ExtrasFor(12) != 4 || c.ExtrasFor(1) != 0 {
		t.Errorf("k=3 r=2: max %d, for 7: %d, for 12: %d, for 1: %d", c.MaxExtraVMs(), c.ExtrasFor(7), c.ExtrasFor(12), c.ExtrasFor(1))
	}
	if (Cluster{}).WithDefaults() != PaperCluster() {
		t.Error("a zero cluster with defaults must be the paper's")
	}
}

func TestClusterValidate(t *testing.T) {
	if err := PaperCluster().Validate(); err != nil {
		t.Fatal(err)
	}
	for want, mutate := range map[string]func(*Cluster){
		"cluster: hosts must be at least 1, got 0":          func(c *Cluster) { c.Hosts = 0 },
		"cluster: disks_per_host must be at least 1, got 0": func(c *Cluster) { c.DisksPerHost = 0 },
		"cluster: hosts must be at most 524288 with disks_per_host 2 (1048576 primary VMs, the most a plan's tables fit in memory), got 100000000": func(c *Cluster) { c.Hosts = 100_000_000 },
		"cluster: disks_per_host must be at most 128 (the densest storage servers hold about 100 drives), got 100000":                              func(c *Cluster) { c.DisksPerHost = 100_000 },
		"cluster: hosts must be at most 8192 with disks_per_host 128":                                                                              func(c *Cluster) { c.DisksPerHost, c.Hosts = 128, 8193 },
		"cluster: extra_ratio must be at least 1, got 0":                                                                                           func(c *Cluster) { c.ExtraRatio = 0 },
		"cluster: extra_ratio must not exceed disks_per_host 2: an extra VM needs r primary VMs on its own machine, got 3":                         func(c *Cluster) { c.ExtraRatio = 3 },
		"cluster: overcommit_penalty (alpha) must be between 1 and 100, got 0.99":                                                                  func(c *Cluster) { c.Alpha = 0.99 },
		"cluster: overcommit_penalty (alpha) must be between 1 and 100, got 1e+300":                                                                func(c *Cluster) { c.Alpha = 1e300 },
		"cluster: overcommit_penalty (alpha) must be between 1 and 100, got NaN":                                                                   func(c *Cluster) { c.Alpha = math.NaN() },
		"cluster: overcommit_penalty (alpha) must be between 1 and 100, got +Inf":                                                                  func(c *Cluster) { c.Alpha = math.Inf(1) },
		"cluster: cores_per_host must be between 1 and 4096, got 0":                                                                                func(c *Cluster) { c.CoresPerHost = 0 },
		"cluster: cores_per_host must be between 1 and 4096, got 100000000":                                                                        func(c *Cluster) { c.CoresPerHost = 1e8 },
		"cluster: memory_mib_per_host must be between 1 and 67108864 (64 TiB), got -1":                                                             func(c *Cluster) { c.MemoryMiBPerHost = -1 },
		"cluster: memory_mib_per_host must be between 1 and 67108864 (64 TiB), got 1000000000000":                                                  func(c *Cluster) { c.MemoryMiBPerHost = 1e12 },
	} {
		c := PaperCluster()
		mutate(&c)
		err := c.Validate()
		var se *SettingError
		if err == nil || !strings.HasPrefix(err.Error(), want) || !errors.As(err, &se) || !strings.Contains(want, " "+se.Name+" ") {
			t.Errorf("err = %v, want %q", err, want)
		}
	}
	// At the bounds, a cluster is valid.
	edge := Cluster{Hosts: MaxPrimaryVMs / MaxDisksPerHost, DisksPerHost: MaxDisksPerHost, ExtraRatio: 1, Alpha: MaxAlpha,
		CoresPerHost: MaxCoresPerHost, MemoryMiBPerHost: MaxMemoryMiBPerHost}
	if err := edge.Validate(); err != nil {
		t.Errorf("the largest plausible cluster: %v", err)
	}
}

func TestThresholds(t *testing.T) {
	th := Thresholds{}.WithDefaults()
	if th != DefaultThresholds() {
		t.Fatalf("defaults %+v", th)
	}
	for _, c := range []struct {
		cpu, io      float64
		wantC, wantI bool
	}{
		{0.61, 50, true, false},
		{0.60, 100, false, false}, // "above": the thresholds themselves do not count
		{0.2, 150, false, true},
		{0.9, 400, true, true},
	} {
		gc, gi := th.Classify(c.cpu, c.io)
		if gc != c.wantC || gi != c.wantI {
			t.Errorf("Classify(%v, %v) = %v, %v", c.cpu, c.io, gc, gi)
		}
	}
	if err := (Thresholds{CPUUtil: 1.5, IOMBps: 1, ReferenceNodes: 1}).Validate(); err == nil {
		t.Error("cpu_util 1.5: want an error")
	}
}
