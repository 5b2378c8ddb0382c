package sweep

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/packer-sched/packer/sim"
)

// TestEstimateByHand: a shard's time is the start plus 2 µs a task for
// each of its points; its memory the base, every loaded workload (4
// bytes a byte of its file) and its largest point's run.
func TestEstimateByHand(t *testing.T) {
	dir := t.TempDir()
	path := writeSweep(t, dir, `{"name": "e", "run": "simulate", "workloads": ["tiny.json"], "nodes": [4, 40],
		"policies": ["fifo", "fair"], "seeds": [1, 2]}`)
	s, err := Load(path, All)
	if err != nil {
		t.Fatal(err)
	}
	tiny, err := s.workload("tiny.json")
	if err != nil {
		t.Fatal(err)
	}
	if tasks := tiny.tasks.Tasks(); tasks != 13 {
		t.Fatalf("tiny.json has %d tasks, want 4+1+3+5 = 13", tasks)
	}
	on := func(nodes int) int64 {
		w := *tiny.tasks
		w.Cluster.Nodes = nodes
		return sim.EstimateMemory(&w)
	}
	// Shard 0 of 2: indexes 0, 2, 4, 6 = nodes 4 (fifo s1, fair s1), nodes 40 (fifo s1, fair s1).
	e := s.Estimate(Shard{0, 2})
	wantSec := 60 + 4*13*2e-6
	wantBytes := int64(128<<20) + 4*s.sizes["tiny.json"] + max(on(4), on(40))
	if e.Points != 4 || abs(e.Seconds-wantSec) > 1e-9 || e.Bytes != wantBytes || on(40) <= on(4) {
		t.Errorf("estimate %+v, want 4 points, %g s, %d bytes", e, wantSec, wantBytes)
	}
	z := s.Size(2)
	if z.Minutes != 5 || z.MiB != 192 {
		t.Errorf("sizing %d min, %d MiB; want the floor of 5 min and 128 MiB + a little rounded up to 192", z.Minutes, z.MiB)
	}
}

// TestPlanEstimate: the swarm's time is particles × (iterations + 1)
// evaluations at 40 µs + 4 µs a job; auto up to 16 jobs is exact's, past
// it column generation's 0.3 s a job and the swarm's that seeds it, if
// one runs.
func TestPlanEstimate(t *testing.T) {
	p := Point{Policy: "pso", Options: Options{Particles: 100, Iterations: 9}}
	if got, want := planSeconds(p, 5), 100*10*(40e-6+5*4e-6); abs(got-want) > 1e-12 {
		t.Errorf("pso: %g s, want %g", got, want)
	}
	p.Options.TimeLimit = 0.01
	if got := planSeconds(p, 5); got != 0.01 {
		t.Errorf("pso under a 0.01 s limit: %g s", got)
	}
	if got := planSeconds(Point{Policy: "auto"}, 16); got != exactSeconds {
		t.Errorf("auto at 16 jobs: %g s, want exact's %d", got, exactSeconds)
	}
	// 17 jobs on the paper's 9 hosts: 1,500 particles get
	// ⌊1,500,000 ÷ (1,500 × 17)⌋ = 58 iterations, 88,500 evaluations of
	// 108 µs (9.558 s), beside 5.1 s of column generation.
	if got, want := planSeconds(Point{Policy: "auto"}, 17), 5.1+9.558; abs(got-want) > 1e-9 {
		t.Errorf("auto at 17 jobs on 9 hosts: %g s, want %g", got, want)
	}
	// 101 jobs on 20 hosts (40 primary VMs): no swarm, unless asked for.
	if got, want := planSeconds(Point{Policy: "auto", Size: 20}, 101), 101*columnsSecondsPerJob; abs(got-want) > 1e-9 {
		t.Errorf("auto at 101 jobs on 20 hosts: %g s, want %g", got, want)
	}
	asked := Point{Policy: "auto", Size: 20, Options: Options{Particles: 40, Iterations: 7}}
	if got, want := planSeconds(asked, 101), 101*0.3+40*8*(40e-6+101*4e-6); abs(got-want) > 1e-9 {
		t.Errorf("auto at 101 jobs on 20 hosts with 40 particles × 7 iterations: %g s, want %g", got, want)
	}
}

func abs(x float64) float64 { return max(x, -x) }

// TestSlurmScript: the array is 0..N-1 throttled to K, time and memory
// the sizing's, and each task runs its own shard into the directory.
func TestSlurmScript(t *testing.T) {
	s := loadTest(t, t.TempDir())
	script := string(s.Slurm(Batch{Shards: 4, Parallel: 2, Packer: "/opt/packer bin/packer", SweepFile: "/shared/s.json", Dir: "/shared/results", Partition: "short"}))
	for _, want := range []string{
		"#!/bin/bash\n",
		"\n#SBATCH --job-name=packer-sweep-t\n",
		"\n#SBATCH --array=0-3%2\n",
		"\n#SBATCH --time=0-00:05:00\n",
		"\n#SBATCH --mem=192M\n",
		"\n#SBATCH --output=/shared/results/slurm-%A_%a.out\n",
		"\n#SBATCH --partition=short\n",
		"\nexec '/opt/packer bin/packer' sweep run --shards 4 --out /shared/results /shared/s.json\n",
	} {
		if !strings.Contains(script, want) {
			t.Errorf("script lacks %q:\n%s", want, script)
		}
	}
	if strings.Contains(script, "--account") {
		t.Error("an account no one gave")
	}
	if all := string(s.Slurm(Batch{Shards: 3, Packer: "p", SweepFile: "s", Dir: "d"})); !strings.Contains(all, "--array=0-2\n") {
		t.Errorf("no throttle: %s", all)
	}
}

// TestKubernetesManifestIsABatchJob: the manifest decodes strictly (no
// field the API lacks) into k8s.io/api's batch/v1 Job, an Indexed Job
// whose pods run their index's shard with the memory estimated.
func TestKubernetesManifestIsABatchJob(t *testing.T) {
	s := loadTest(t, t.TempDir())
	data := s.Kubernetes(Batch{Shards: 4, Parallel: 3, Retries: 2, Packer: "packer", Image: "registry.example/packer:1", Claim: "sweeps",
		Mount: "/sweep", SweepFile: "s.json", Dir: "results"})
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var job batchv1.Job
	if err := dec.Decode(&job); err != nil {
		t.Fatalf("strict decode into batchv1.Job: %v\n%s", err, data)
	}
	sp := job.Spec
	if job.APIVersion != "batch/v1" || job.Kind != "Job" || job.Name != "packer-sweep-t" {
		t.Errorf("object %s %s %s", job.APIVersion, job.Kind, job.Name)
	}
	if sp.CompletionMode == nil || *sp.CompletionMode != batchv1.IndexedCompletion || *sp.Completions != 4 || *sp.Parallelism != 3 || *sp.BackoffLimitPerIndex != 2 {
		t.Errorf("spec %+v", sp)
	}
	pod := sp.Template.Spec
	if pod.RestartPolicy != corev1.RestartPolicyNever || len(pod.Containers) != 1 {
		t.Fatalf("pod %+v", pod)
	}
	c := pod.Containers[0]
	if got := strings.Join(c.Command, " "); got != "packer sweep run --out /sweep/results /sweep/s.json" {
		t.Errorf("command %q", got)
	}
	if len(c.Env) == 0 || c.Env[0].Name != EnvShards || c.Env[0].Value != "4" {
		t.Errorf("env %+v", c.Env)
	}
	req, lim := c.Resources.Requests[corev1.ResourceMemory], c.Resources.Limits[corev1.ResourceMemory]
	if req.Value() != 192<<20 || lim.Value() != 192<<20 {
		t.Errorf("memory request %s, limit %s; want 192Mi", req.String(), lim.String())
	}
	if len(pod.Volumes) != 1 || pod.Volumes[0].PersistentVolumeClaim == nil || pod.Volumes[0].PersistentVolumeClaim.ClaimName != "sweeps" ||
		c.VolumeMounts[0].MountPath != "/sweep" {
		t.Errorf("volumes %+v, mounts %+v", pod.Volumes, c.VolumeMounts)
	}
	if *pod.ActiveDeadlineSeconds != 600 {
		t.Errorf("deadline %d s, want twice 5 min", *pod.ActiveDeadlineSeconds)
	}
	if !regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`).MatchString(job.Name) {
		t.Errorf("%q is no DNS-1123 label", job.Name)
	}
}

// loadTest loads a 12-point sweep of tiny.json named "t".
func loadTest(t *testing.T, dir string) *Sweep {
	t.Helper()
	s, err := Load(writeSweep(t, dir, `{"name": "t", "run": "simulate", "workloads": ["tiny.json"], "nodes": [4, 8, 12],
		"policies": ["fifo", "fair"], "seeds": [1, 2]}`), All)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// writeSweep writes the sweep file and tiny.json beside it.
func writeSweep(t *testing.T, dir, body string) string {
	t.Helper()
	write(t, filepath.Join(dir, "tiny.json"), `{"cluster": {"nodes": 4}, "jobs": [
		{"name": "a", "arrival": 0, "maps": {"count": 4, "mean": 10}, "reduces": {"count": 1, "mean": 5}},
		{"name": "b", "arrival": 3, "maps": {"durations": [5, 7, 9]}},
		{"name": "c", "arrival": 4, "maps": {"count": 5, "mean": 2}}]}`)
	path := filepath.Join(dir, "s.json")
	write(t, path, body)
	return path
}
