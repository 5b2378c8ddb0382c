package sweep

import (
	"strings"
	"testing"
)

// TestShardsPartitionThePoints: for every N, each index is owned by
// exactly one shard, Indexes and Select agree, and shard sizes differ by
// at most one.
func TestShardsPartitionThePoints(t *testing.T) {
	const total = 23
	points := make([]Point, total)
	for i := range points {
		points[i].Index = i
	}
	for n := 1; n <= total+2; n++ {
		owners := make([]int, total)
		lo, hi := total, 0
		for k := range n {
			sh := Shard{k, n}
			idx := sh.Indexes(total)
			sel := sh.Select(points)
			if len(idx) != len(sel) {
				t.Fatalf("shard %s: Indexes %v, Select %d points", sh, idx, len(sel))
			}
			for j, i := range idx {
				if sel[j].Index != i || !sh.Owns(i) {
					t.Fatalf("shard %s: index %d", sh, i)
				}
				owners[i]++
			}
			lo, hi = min(lo, len(idx)), max(hi, len(idx))
		}
		for i, c := range owners {
			if c != 1 {
				t.Fatalf("N=%d: index %d owned %d times", n, i, c)
			}
		}
		if hi-lo > 1 {
			t.Errorf("N=%d: shard sizes %d to %d", n, lo, hi)
		}
	}
}

func TestParseShard(t *testing.T) {
	for in, want := range map[string]Shard{"0/1": {0, 1}, "3/4": {3, 4}, "0/100000": {0, 100000}} {
		if got, err := ParseShard(in); err != nil || got != want {
			t.Errorf("ParseShard(%q) = %v, %v", in, got, err)
		}
	}
	for _, in := range []string{"4/4", "-1/4", "1/0", "1", "a/b", "1/2/3", "0/100001", ""} {
		if _, err := ParseShard(in); err == nil {
			t.Errorf("ParseShard(%q) accepted", in)
		}
	}
}

func env(kv ...string) func(string) (string, bool) {
	m := map[string]string{}
	for i := 0; i < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

// TestFromEnvSlurm: an array's place, not its id, is the shard when no
// count is given (--array=1-4, --array=0-15:4 and 10-13%2 alike); with a
// count, the ids are the shard numbers, so a rerun of one task as an
// array of one runs that shard.
func TestFromEnvSlurm(t *testing.T) {
	for _, c := range []struct {
		env   func(string) (string, bool)
		count int
		want  Shard
	}{
		{env(EnvSlurmID, "0", EnvSlurmCount, "4", EnvSlurmMin, "0"), 0, Shard{0, 4}},
		{env(EnvSlurmID, "3", EnvSlurmCount, "4", EnvSlurmMin, "0"), 0, Shard{3, 4}},
		{env(EnvSlurmID, "1", EnvSlurmCount, "4", EnvSlurmMin, "1"), 0, Shard{0, 4}},
		{env(EnvSlurmID, "4", EnvSlurmCount, "4", EnvSlurmMin, "1"), 0, Shard{3, 4}},
		{env(EnvSlurmID, "12", EnvSlurmCount, "4", EnvSlurmMin, "0", EnvSlurmStep, "4"), 0, Shard{3, 4}},
		{env(EnvSlurmID, "11", EnvSlurmCount, "4", EnvSlurmMin, "10"), 0, Shard{1, 4}},
		{env(EnvSlurmID, "2", EnvSlurmCount, "4"), 0, Shard{2, 4}}, // no MIN: from 0
		// sbatch --array=2 script, the script passing --shards 4:
		{env(EnvSlurmID, "2", EnvSlurmCount, "1", EnvSlurmMin, "2"), 4, Shard{2, 4}},
		{env(EnvSlurmID, "2", EnvSlurmCount, "1", EnvSlurmMin, "2", EnvShards, "4"), 0, Shard{2, 4}},
	} {
		got, from, ok, err := FromEnv(c.env, c.count)
		if err != nil || !ok || got != c.want || !strings.Contains(from, EnvSlurmID) {
			t.Errorf("FromEnv(count %d) = %v from %q, %v, %v; want %v", c.count, got, from, ok, err, c.want)
		}
	}
	for _, c := range []struct {
		env   func(string) (string, bool)
		count int
		want  string
	}{
		{env(EnvSlurmID, "5", EnvSlurmCount, "4", EnvSlurmMin, "0"), 0, "shard 5 of 4"},
		{env(EnvSlurmID, "3", EnvSlurmCount, "4", EnvSlurmMin, "0", EnvSlurmStep, "2"), 0, "not SLURM_ARRAY_TASK_MIN=0 plus a multiple"},
		{env(EnvSlurmID, "3"), 0, "SLURM_ARRAY_TASK_COUNT is not"},
		{env(EnvSlurmID, "x", EnvSlurmCount, "4"), 0, `SLURM_ARRAY_TASK_ID="x": want a whole number`},
		{env(EnvSlurmID, "4", EnvSlurmCount, "1", EnvSlurmMin, "4"), 4, "task ids must be the shard numbers 0 to 3"},
		{env(EnvSlurmID, "1", EnvSlurmCount, "4", EnvK8sIndex, "1"), 0, "both"},
	} {
		if _, _, _, err := FromEnv(c.env, c.count); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("FromEnv: %v, want %q", err, c.want)
		}
	}
}

// TestFromEnvKubernetes: JOB_COMPLETION_INDEX is the shard; the count
// comes from the flag or PACKER_SWEEP_SHARDS and must be there.
func TestFromEnvKubernetes(t *testing.T) {
	if s, _, ok, err := FromEnv(env(EnvK8sIndex, "2"), 5); err != nil || !ok || s != (Shard{2, 5}) {
		t.Errorf("flag count: %v %v %v", s, ok, err)
	}
	if s, _, ok, err := FromEnv(env(EnvK8sIndex, "4", EnvShards, "5"), 0); err != nil || !ok || s != (Shard{4, 5}) {
		t.Errorf("env count: %v %v %v", s, ok, err)
	}
	if s, _, ok, err := FromEnv(env(EnvK8sIndex, "4", EnvShards, "9"), 5); err != nil || !ok || s != (Shard{4, 5}) {
		t.Errorf("the flag wins over the env: %v %v %v", s, ok, err)
	}
	for _, e := range []func(string) (string, bool){env(EnvK8sIndex, "2"), env(EnvK8sIndex, "5", EnvShards, "5"), env(EnvK8sIndex, "1", EnvShards, "x")} {
		if _, _, _, err := FromEnv(e, 0); err == nil {
			t.Error("accepted")
		}
	}
	if _, _, ok, err := FromEnv(env(), 0); ok || err != nil {
		t.Errorf("no batch system: %v %v", ok, err)
	}
}
