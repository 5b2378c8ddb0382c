package sweep

import (
	"fmt"
	"strconv"
	"strings"
)

// Shard is shard Index (from 0) of Count: the points whose index is Index
// modulo Count. Dealing the points round-robin spreads every axis over the
// shards, so that a large workload or a slow policy does not land on one.
type Shard struct{ Index, Count int }

// All is the one shard of an unsharded run.
var All = Shard{0, 1}

func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.Index, s.Count) }

// Owns says whether the point of that index is the shard's.
func (s Shard) Owns(index int) bool { return index%s.Count == s.Index }

// Select returns the shard's points, in order.
func (s Shard) Select(points []Point) []Point {
	var out []Point
	for _, p := range points {
		if s.Owns(p.Index) {
			out = append(out, p)
		}
	}
	return out
}

// Indexes lists the point indexes of the shard among total points.
func (s Shard) Indexes(total int) []int {
	var out []int
	for i := s.Index; i < total; i += s.Count {
		out = append(out, i)
	}
	return out
}

// ParseShard reads "i/N": shard i, from 0, of N.
func ParseShard(s string) (Shard, error) {
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil {
		return Shard{}, fmt.Errorf("want i/N, shard i (from 0) of N, got %q", s)
	}
	return newShard(i, n)
}

func newShard(i, n int) (Shard, error) {
	if n < 1 || n > MaxPoints {
		return Shard{}, fmt.Errorf("%d shards: want 1 to %d", n, MaxPoints)
	}
	if i < 0 || i >= n {
		return Shard{}, fmt.Errorf("shard %d of %d: want 0 to %d", i, n, n-1)
	}
	return Shard{i, n}, nil
}

// The variables FromEnv reads.
const (
	EnvSlurmID    = "SLURM_ARRAY_TASK_ID"
	EnvSlurmCount = "SLURM_ARRAY_TASK_COUNT"
	EnvSlurmMin   = "SLURM_ARRAY_TASK_MIN"
	EnvSlurmStep  = "SLURM_ARRAY_TASK_STEP"
	EnvK8sIndex   = "JOB_COMPLETION_INDEX"
	// EnvShards gives the shard count where the engine does not (a
	// Kubernetes Indexed Job does not tell a pod its completions).
	EnvShards = "PACKER_SWEEP_SHARDS"
)

// FromEnv finds the shard a batch system's task is, from lookup (os.LookupEnv
// in packer) and count, the shard count given on the command line (0: none;
// then EnvShards). It returns where the shard came from, for messages, and
// ok false when no batch system's variable is set.
//
// Slurm job arrays: without a count, the shard is the task's place in the
// array, (SLURM_ARRAY_TASK_ID − SLURM_ARRAY_TASK_MIN) ÷ SLURM_ARRAY_TASK_STEP
// of SLURM_ARRAY_TASK_COUNT, so any --array=A-B[:S] runs every shard once.
// With a count, the task ids are the shard numbers themselves, as in the
// script packer sweep emit slurm writes: then `sbatch --array=2 script`
// reruns shard 2 alone (an array of one task, whose place in it is 0).
//
// Kubernetes Indexed Jobs: JOB_COMPLETION_INDEX is the shard; the count is
// required (the Job's completions).
func FromEnv(lookup func(string) (string, bool), count int) (s Shard, from string, ok bool, err error) {
	if count == 0 {
		if v, set := lookup(EnvShards); set {
			if count, err = envInt(EnvShards, v); err != nil {
				return Shard{}, "", false, err
			}
		}
	}
	id, slurm := lookup(EnvSlurmID)
	idx, k8s := lookup(EnvK8sIndex)
	switch {
	case slurm && k8s:
		return Shard{}, "", false, fmt.Errorf("both %s and %s are set: run under one batch system, or give --shard", EnvSlurmID, EnvK8sIndex)
	case slurm:
		s, from, err = slurmShard(lookup, id, count)
	case k8s:
		s, from, err = k8sShard(idx, count)
	default:
		return Shard{}, "", false, nil
	}
	return s, from, err == nil, err
}

func slurmShard(lookup func(string) (string, bool), id string, count int) (Shard, string, error) {
	taskID, err := envInt(EnvSlurmID, id)
	if err != nil {
		return Shard{}, "", err
	}
	if count > 0 {
		s, err := newShard(taskID, count)
		if err != nil {
			return Shard{}, "", fmt.Errorf("%s=%d with %d shards: %v (the array's task ids must be the shard numbers 0 to %d)", EnvSlurmID, taskID, count, err, count-1)
		}
		return s, fmt.Sprintf("%s=%d", EnvSlurmID, taskID), nil
	}
	vals := map[string]int{EnvSlurmMin: 0, EnvSlurmStep: 1}
	for _, name := range []string{EnvSlurmCount, EnvSlurmMin, EnvSlurmStep} {
		v, set := lookup(name)
		if !set && name == EnvSlurmCount {
			return Shard{}, "", fmt.Errorf("%s is set but %s is not: give the shard count (--shards)", EnvSlurmID, EnvSlurmCount)
		}
		if set {
			if vals[name], err = envInt(name, v); err != nil {
				return Shard{}, "", err
			}
		}
	}
	offset, step := taskID-vals[EnvSlurmMin], max(1, vals[EnvSlurmStep])
	if offset%step != 0 {
		return Shard{}, "", fmt.Errorf("%s=%d is not %s=%d plus a multiple of %s=%d", EnvSlurmID, taskID, EnvSlurmMin, vals[EnvSlurmMin], EnvSlurmStep, step)
	}
	s, err := newShard(offset/step, vals[EnvSlurmCount])
	if err != nil {
		return Shard{}, "", fmt.Errorf("%s=%d of an array from %d (%s=%d): %v", EnvSlurmID, taskID, vals[EnvSlurmMin], EnvSlurmCount, vals[EnvSlurmCount], err)
	}
	return s, fmt.Sprintf("%s=%d of %s=%d from %d", EnvSlurmID, taskID, EnvSlurmCount, vals[EnvSlurmCount], vals[EnvSlurmMin]), nil
}

func k8sShard(idx string, count int) (Shard, string, error) {
	i, err := envInt(EnvK8sIndex, idx)
	if err != nil {
		return Shard{}, "", err
	}
	if count == 0 {
		return Shard{}, "", fmt.Errorf("%s=%d: give the shard count, the Job's completions (--shards or %s)", EnvK8sIndex, i, EnvShards)
	}
	s, err := newShard(i, count)
	if err != nil {
		return Shard{}, "", fmt.Errorf("%s=%d: %v", EnvK8sIndex, i, err)
	}
	return s, fmt.Sprintf("%s=%d", EnvK8sIndex, i), nil
}

func envInt(name, v string) (int, error) {
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil {
		return 0, fmt.Errorf("%s=%q: want a whole number", name, v)
	}
	return n, nil
}

// Choose is the shard a run is: flag ("i/N", --shard) if not empty, else a
// batch system's index (FromEnv) with count shards (--shards; 0: the
// engine's or EnvShards'), else none (All, ok false). Errors name the flag
// or variable at fault.
func Choose(flag string, count int, lookup func(string) (string, bool)) (s Shard, from string, ok bool, err error) {
	if count < 0 {
		return Shard{}, "", false, fmt.Errorf("--shards: want at least 1, got %d", count)
	}
	if flag != "" {
		if s, err = ParseShard(flag); err != nil {
			return s, "", false, fmt.Errorf("--shard: %w", err)
		}
		if count > 0 && count != s.Count {
			return s, "", false, fmt.Errorf("--shard %s and --shards %d disagree", flag, count)
		}
		return s, "--shard", true, nil
	}
	if s, from, ok, err = FromEnv(lookup, count); err != nil {
		return s, "", false, err
	}
	if !ok && count > 0 {
		return s, "", false, fmt.Errorf("--shards %d: no shard index (give --shard i/%d, or run under a Slurm array or an Indexed Job)", count, count)
	}
	if !ok {
		return All, "", false, nil
	}
	return s, from, true, nil
}
