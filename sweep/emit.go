package sweep

import (
	"encoding/json"
	"fmt"
	"math"
	"path"
	"regexp"
	"strconv"
	"strings"

	"github.com/packer-sched/packer/internal/memlimit"
)

// Batch is what an emitter needs beyond the sweep: how many shards, how
// many at once, where packer and the results are.
type Batch struct {
	// Shards is the number of tasks (array tasks, completion indexes).
	Shards int
	// Parallel is the most that run at once (Slurm's %K throttle, the
	// Job's parallelism); 0 is all.
	Parallel int
	// Packer is the packer binary the tasks run (Slurm: a path on the
	// shared filesystem; Kubernetes: the command in the image).
	Packer string
	// SweepFile and Dir are the sweep file and the results directory as the
	// tasks see them.
	SweepFile, Dir string
	// Slurm only: partition and account, if any.
	Partition, Account string
	// Kubernetes only: the image, the claim of the volume that holds the
	// sweep file, its workloads and the results, where it is mounted, and
	// the retries of a failed index.
	Image, Claim, Mount string
	Retries             int
}

// Sizing is the task's limits from the sweep's estimate of its costliest
// shard (Largest): time rounded up to the minute, at least five; memory
// rounded up to 64 MiB.
type Sizing struct {
	Estimate
	Minutes int
	MiB     int64
}

// Size computes the sizing of n shards.
func (s *Sweep) Size(n int) Sizing {
	e := s.Largest(n)
	return Sizing{Estimate: e, Minutes: max(5, int(math.Ceil(e.Seconds/60))), MiB: (e.Bytes + (64<<20 - 1)) >> 26 << 6}
}

var shellSafe = regexp.MustCompile(`^[A-Za-z0-9_./:=@%+-]+$`)

// ShellQuote quotes s for a POSIX shell, when it needs quoting.
func ShellQuote(s string) string {
	if shellSafe.MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Slurm writes an sbatch script that runs the sweep as a job array of
// b.Shards tasks, task i running shard i (--shards makes the task ids the
// shard numbers, so `sbatch --array=I script` reruns shard I alone).
func (s *Sweep) Slurm(b Batch) []byte {
	z := s.Size(b.Shards)
	var w strings.Builder
	array := fmt.Sprintf("0-%d", b.Shards-1)
	if b.Parallel > 0 && b.Parallel < b.Shards {
		array += "%" + strconv.Itoa(b.Parallel)
	}
	fmt.Fprintf(&w, "#!/bin/bash\n")
	fmt.Fprintf(&w, "# packer sweep %s (digest %s): %d %s points in %d shards of up to %d.\n", s.Name, s.Digest, len(s.points), s.Run, b.Shards, z.Points)
	fmt.Fprintf(&w, "# Estimated for the costliest shard: %.0f s of one core, %s of memory (docs/sweeping.md says how).\n", z.Seconds, memlimit.Human(z.Bytes))
	fmt.Fprintf(&w, "# Submit: sbatch THIS; when every task is done: %s sweep merge %s\n", ShellQuote(b.Packer), ShellQuote(b.Dir))
	fmt.Fprintf(&w, "# Rerun shard I alone: sbatch --array=I THIS\n")
	fmt.Fprintf(&w, "#SBATCH --job-name=packer-sweep-%s\n", s.Name)
	fmt.Fprintf(&w, "#SBATCH --array=%s\n", array)
	fmt.Fprintf(&w, "#SBATCH --time=%d-%02d:%02d:00\n", z.Minutes/1440, z.Minutes/60%24, z.Minutes%60)
	fmt.Fprintf(&w, "#SBATCH --mem=%dM\n", z.MiB)
	fmt.Fprintf(&w, "#SBATCH --cpus-per-task=1\n")
	fmt.Fprintf(&w, "#SBATCH --ntasks=1\n")
	fmt.Fprintf(&w, "#SBATCH --output=%s/slurm-%%A_%%a.out\n", b.Dir)
	if b.Partition != "" {
		fmt.Fprintf(&w, "#SBATCH --partition=%s\n", b.Partition)
	}
	if b.Account != "" {
		fmt.Fprintf(&w, "#SBATCH --account=%s\n", b.Account)
	}
	fmt.Fprintf(&w, "set -euo pipefail\n")
	fmt.Fprintf(&w, "export GOMAXPROCS=1\n")
	fmt.Fprintf(&w, "exec %s sweep run --shards %d --out %s %s\n", ShellQuote(b.Packer), b.Shards, ShellQuote(b.Dir), ShellQuote(b.SweepFile))
	return []byte(w.String())
}

// The Kubernetes objects the manifest holds, with the fields it sets, in
// the API's JSON names (batch/v1 Job, core/v1 pod spec).
type (
	k8sJob struct {
		APIVersion string  `json:"apiVersion"`
		Kind       string  `json:"kind"`
		Metadata   k8sMeta `json:"metadata"`
		Spec       k8sSpec `json:"spec"`
	}
	k8sMeta struct {
		Name        string            `json:"name,omitempty"`
		Labels      map[string]string `json:"labels"`
		Annotations map[string]string `json:"annotations,omitempty"`
	}
	k8sSpec struct {
		CompletionMode       string      `json:"completionMode"`
		Completions          int         `json:"completions"`
		Parallelism          int         `json:"parallelism"`
		BackoffLimitPerIndex int         `json:"backoffLimitPerIndex"`
		Template             k8sTemplate `json:"template"`
	}
	k8sTemplate struct {
		Metadata k8sMeta    `json:"metadata"`
		Spec     k8sPodSpec `json:"spec"`
	}
	k8sPodSpec struct {
		RestartPolicy         string         `json:"restartPolicy"`
		ActiveDeadlineSeconds int64          `json:"activeDeadlineSeconds"`
		Containers            []k8sContainer `json:"containers"`
		Volumes               []k8sVolume    `json:"volumes"`
	}
	k8sContainer struct {
		Name         string       `json:"name"`
		Image        string       `json:"image"`
		Command      []string     `json:"command"`
		Env          []k8sEnv     `json:"env"`
		Resources    k8sResources `json:"resources"`
		VolumeMounts []k8sMount   `json:"volumeMounts"`
	}
	k8sEnv struct {
		Name  string `json:"name"`
		Value string `json:"value"`
	}
	k8sResources struct {
		Requests map[string]string `json:"requests"`
		Limits   map[string]string `json:"limits"`
	}
	k8sMount struct {
		Name      string `json:"name"`
		MountPath string `json:"mountPath"`
	}
	k8sVolume struct {
		Name                  string   `json:"name"`
		PersistentVolumeClaim k8sClaim `json:"persistentVolumeClaim"`
	}
	k8sClaim struct {
		ClaimName string `json:"claimName"`
	}
)

// K8sName is the sweep's name as a Kubernetes object name (lower case,
// '-' for '_' and '.').
func (s *Sweep) K8sName() string {
	n := strings.ToLower(strings.NewReplacer("_", "-", ".", "-").Replace(s.Name))
	return strings.Trim("packer-sweep-"+n, "-")
}

// Kubernetes writes an Indexed Job (JSON, which kubectl apply takes) whose
// pod of completion index i runs shard i of b.Shards: the volume of claim
// b.Claim, mounted at b.Mount, holds the sweep file, its workloads and the
// results directory; each index is retried b.Retries times; memory is
// requested and limited at the estimate, and a pod's deadline is twice
// the time estimate.
func (s *Sweep) Kubernetes(b Batch) []byte {
	z := s.Size(b.Shards)
	parallel := b.Parallel
	if parallel <= 0 || parallel > b.Shards {
		parallel = b.Shards
	}
	labels := map[string]string{"app.kubernetes.io/name": "packer-sweep", "packer-sweep/name": s.K8sName()}
	mem := fmt.Sprintf("%dMi", z.MiB)
	job := k8sJob{APIVersion: "batch/v1", Kind: "Job",
		Metadata: k8sMeta{Name: s.K8sName(), Labels: labels, Annotations: map[string]string{
			"packer-sweep/digest":   s.Digest,
			"packer-sweep/estimate": fmt.Sprintf("%d points in %d shards; costliest shard %.0f s of one core, %s", len(s.points), b.Shards, z.Seconds, memlimit.Human(z.Bytes)),
		}},
		Spec: k8sSpec{CompletionMode: "Indexed", Completions: b.Shards, Parallelism: parallel, BackoffLimitPerIndex: b.Retries,
			Template: k8sTemplate{Metadata: k8sMeta{Labels: labels}, Spec: k8sPodSpec{
				RestartPolicy: "Never", ActiveDeadlineSeconds: int64(2 * 60 * z.Minutes),
				Containers: []k8sContainer{{Name: "sweep", Image: b.Image,
					Command: []string{b.Packer, "sweep", "run", "--out", path.Join(b.Mount, b.Dir), path.Join(b.Mount, b.SweepFile)},
					Env:     []k8sEnv{{Name: EnvShards, Value: strconv.Itoa(b.Shards)}, {Name: "GOMAXPROCS", Value: "1"}},
					Resources: k8sResources{Requests: map[string]string{"cpu": "1", "memory": mem},
						Limits: map[string]string{"memory": mem}},
					VolumeMounts: []k8sMount{{Name: "sweep", MountPath: b.Mount}}}},
				Volumes: []k8sVolume{{Name: "sweep", PersistentVolumeClaim: k8sClaim{ClaimName: b.Claim}}},
			}}}}
	out, _ := json.MarshalIndent(job, "", "  ") // plain structs and maps of strings
	return append(out, '\n')
}
