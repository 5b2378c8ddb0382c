package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
)

// TestPlanWorkLimitSameBytes: two runs of the same plan command under
// --work-limit, one on one core (GOMAXPROCS=1), the other on two beside a
// CPU-heavy job (this test's goroutines spinning), write byte-identical
// plan documents, whose notes say that the work limit ended the search and
// hold no time. On 50 hosts column generation prices on both cores.
func TestPlanWorkLimitSameBytes(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, c := range []struct{ workload, hosts, iterations, limit string }{
		{"random-m24-seed3", "3", "200", "3000"},
		{"random-m24-seed3", "3", "200", "10000"},
		{"random-m30-seed1", "50", "5", "3000"},
	} {
		limit := c.limit
		var docs [][]byte
		for i, procs := range []string{"1", "2"} {
			out := filepath.Join(dir, procs+"-"+c.hosts+"-"+limit+".json")
			cmd := exec.Command(self, "plan", "-w", c.workload, "--hosts", c.hosts, "--particles", "40", "--iterations", c.iterations, "--work-limit", limit, "-o", out, "--summary")
			cmd.Env = append(os.Environ(), "PACKER_RUN_MAIN=1", "GOMAXPROCS="+procs)
			var stop atomic.Bool
			if i == 1 {
				for range runtime.NumCPU() {
					go func() {
						for x := 0; !stop.Load(); x++ {
							_ = x * x
						}
					}()
				}
			}
			msg, err := cmd.CombinedOutput()
			stop.Store(true)
			if err != nil {
				t.Fatalf("%s on %s hosts, --work-limit %s, GOMAXPROCS=%s: %v\n%s", c.workload, c.hosts, limit, procs, err, msg)
			}
			doc, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			docs = append(docs, doc)
		}
		if !bytes.Equal(docs[0], docs[1]) {
			t.Errorf("%s on %s hosts, --work-limit %s: the documents differ:\n%s\n%s", c.workload, c.hosts, limit, docs[0], docs[1])
		}
		if s := string(docs[0]); !strings.Contains(s, "the work limit ("+limit+" units) ended the search") || strings.Contains(s, "time limit") {
			t.Errorf("%s on %s hosts, --work-limit %s: the notes do not say the work limit ended the search, or speak of time:\n%s", c.workload, c.hosts, limit, s)
		}
	}
}
