package memlimit

import (
	"fmt"
	"math"
	"os"
	"os/exec"
	"strings"
	"testing"
	"testing/fstest"
)

// TestCgroup reads v2 and v1 hierarchies built by hand: the least limit
// along the group's path counts, "max" and v1's huge "no limit" count as
// none.
func TestCgroup(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files map[string]string
		want  int64
	}{
		{"v2 own limit", map[string]string{
			"proc/self/cgroup":                          "0::/kubepods/pod1/c1\n",
			"sys/fs/cgroup/kubepods/pod1/c1/memory.max": "4294967296\n",
			"sys/fs/cgroup/kubepods/pod1/memory.max":    "max\n",
		}, 4294967296},
		{"v2 parent tighter", map[string]string{
			"proc/self/cgroup":             "0::/a/b\n",
			"sys/fs/cgroup/a/b/memory.max": "max\n",
			"sys/fs/cgroup/a/memory.max":   "1000000000\n",
		}, 1000000000},
		{"v2 none", map[string]string{
			"proc/self/cgroup":                    "0::/user.slice\n",
			"sys/fs/cgroup/user.slice/memory.max": "max\n",
		}, 0},
		{"v1", map[string]string{
			"proc/self/cgroup": "12:cpu,cpuacct:/x\n11:memory:/docker/abc\n",
			"sys/fs/cgroup/memory/docker/abc/memory.limit_in_bytes": "2147483648\n",
			"sys/fs/cgroup/memory/docker/memory.limit_in_bytes":     "9223372036854771712\n",
		}, 2147483648},
		{"v1 unlimited", map[string]string{
			"proc/self/cgroup":                           "11:memory:/\n",
			"sys/fs/cgroup/memory/memory.limit_in_bytes": "9223372036854771712\n",
		}, 0},
		{"no cgroup file", map[string]string{}, 0},
	} {
		fsys := fstest.MapFS{}
		for p, c := range tc.files {
			fsys[p] = &fstest.MapFile{Data: []byte(c)}
		}
		if got := Cgroup(fsys); got != tc.want {
			t.Errorf("%s: %d, want %d", tc.name, got, tc.want)
		}
	}
}

// TestBudget: the least of the scaled limits binds and is named.
func TestBudget(t *testing.T) {
	s := Sources{Machine: 64e9, Cgroup: 4e9, AS: 0, GoLimit: math.MaxInt64}
	if b := s.Budget(); b.Bytes != 3e9 || !strings.Contains(b.Source, "cgroup") || !strings.Contains(b.Source, "4.0 GB") {
		t.Errorf("pod: %+v", b)
	}
	s.AS = 4e9
	if b := s.Budget(); b.Bytes != 2e9 || !strings.Contains(b.Source, "RLIMIT_AS") {
		t.Errorf("ulimit -v: %+v", b)
	}
	s.GoLimit = 1e9
	if b := s.Budget(); b.Bytes != 1e9 || !strings.HasPrefix(b.Source, "GOMEMLIMIT") {
		t.Errorf("GOMEMLIMIT: %+v", b)
	}
	if b := (Sources{Machine: 16e9, GoLimit: math.MaxInt64}).Budget(); b.Bytes != 8e9 || !strings.HasPrefix(b.Source, "half the machine") {
		t.Errorf("machine: %+v", b)
	}
	if b := (Sources{GoLimit: math.MaxInt64}).Budget(); b.Bytes != 0 || b.Source != "no limit known" {
		t.Errorf("nothing known: %+v", b)
	}
}

// TestReadUnderPrlimit runs this test binary under prlimit --as and checks
// that Read sees the limit, and Budget binds on it: the real system call,
// not a stand-in.
func TestReadUnderPrlimit(t *testing.T) {
	if os.Getenv("MEMLIMIT_PRINT") == "1" {
		s := Read()
		fmt.Printf("AS=%d budget=%d source=%s\n", s.AS, s.Budget().Bytes, s.Budget().Source)
		return
	}
	if _, err := exec.LookPath("prlimit"); err != nil {
		t.Fatalf("prlimit (util-linux) is needed: %v", err)
	}
	if s := Read(); s.Machine <= 0 {
		t.Errorf("machine memory %d", s.Machine)
	}
	cmd := exec.Command("prlimit", "--as=8000000000", os.Args[0], "-test.run", "^TestReadUnderPrlimit$", "-test.v")
	cmd.Env = append(os.Environ(), "MEMLIMIT_PRINT=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if !strings.Contains(string(out), "AS=8000000000 budget=4000000000 source=half of the address-space limit") {
		t.Errorf("under prlimit --as=8000000000: %s", out)
	}
}
