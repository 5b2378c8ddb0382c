package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// W3 on the paper's cluster: OPT(4 hosts) = 45m21s, OPT(5) = 37m00s, so a
// 40-minute deadline needs 5 hosts, and the exact optimum at 4 proves it.
func TestSizeW3(t *testing.T) {
	code, out, errs := packer(t, "", "size", "-w", "W3", "--deadline", "40m")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"Sizing W3 (7 jobs) for a deadline of 2400.0 s (40m00s)", "2 disks per host (the default; --disks or --disks-options 1,2,4 to change)",
		"exact plans, no time limit",
		"│ hosts │ plan makespan     │ plan's bound │ area bound          │ deadline                    │",
		"│ 3     │ -                 │ -            │ 2598.6 s (43m18s)   │ ruled out by the area bound │",
		"│ 4     │ 2721.7 s (45m21s) │ optimal      │ 2112.1 s (35m12s)   │ ruled out by the optimum    │",
		"│ 5     │ 2220.7 s (37m00s) │ optimal      │ 1735.5 s (28m55s)   │ met                         │",
		"│ 7     │ -                 │ -            │ 1339.7 s (22m19s)   │ met by the plan for 5       │",
		"Answer: 5 hosts; 4 proven impossible: lower bound 2721.7 s (45m21s) > deadline 2400.0 s (40m00s)"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestSizeJSON(t *testing.T) {
	code, out, errs := packer(t, "", "size", "-w", "W3", "--deadline", "2400", "--disks", "2", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var r sizeReport
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	if r.Hosts != 5 || r.Lo != 5 || !r.Exact || r.Deadline != 2400 || !r.DisksGiven || len(r.Curve) == 0 || !r.ExactPlans || len(r.Options) != 0 {
		t.Errorf("report %+v, want 5 hosts, exact, deadline 2400 s, disks given, a curve, exact plans, no options", r)
	}
	for _, row := range r.Curve {
		want := map[int]string{3: "ruled out by the area bound", 4: "ruled out by the optimum", 5: "met"}[row.Hosts]
		if want != "" && row.Verdict != want || row.Hosts == 4 && (row.PlanBound == nil || *row.PlanBound != *row.Makespan || row.Area >= *row.PlanBound) {
			t.Errorf("row %+v, want the verdict %q and, at 4 hosts, the optimum as the plan's bound above the area bound", row, want)
		}
	}
}

// W3 for 40 minutes: 9 one-disk hosts, 5 of two disks, 3 of four; four
// need the fewest hosts (12 disks in all, against 9 and 10).
func TestSizeDisksOptions(t *testing.T) {
	code, out, errs := packer(t, "", "size", "-w", "W3", "--deadline", "40m", "--disks-options", "1,2,4")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{
		"│ 1              │ 1 │ 9     │ 9            │ exact                      │",
		"│ 2              │ 2 │ 5     │ 10           │ exact                      │",
		"│ 4              │ 2 │ 3     │ 12           │ exact (best: fewest hosts) │",
		"Cluster: 4 disks per host (the best of --disks-options), r = 2",
		"Answer: 3 hosts; 2 proven impossible"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	code, out, errs = packer(t, "", "size", "-w", "W3", "--deadline", "40m", "--disks-options", "1,4", "--max-hosts", "4", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var r sizeReport
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	if len(r.Options) != 2 || !strings.Contains(r.Options[0].Error, "deadline unreachable") || r.Options[0].Best || !r.Options[1].Best || r.Hosts != 3 || r.DisksPerHost != 4 {
		t.Errorf("options %+v, answer %d hosts of %d disks; want one disk out of reach and 3 hosts of four", r.Options, r.Hosts, r.DisksPerHost)
	}
}

// Bad input: one line on stderr naming it, exit 2.
func TestSizeBadInput(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--deadline", "0"}, "deadline must be a positive number of seconds, got 0"},
		{[]string{"--deadline", "-1h"}, "deadline must be a positive number of seconds, got -3600"},
		{[]string{"--deadline", "soon"}, `--deadline: "soon" is not a duration`},
		{[]string{"--deadline", "1m"}, `a job is longer than the deadline: job "s-dsim-1" takes at least 90.7 s (1m30s) (on 200 VMs)`},
		{[]string{"--deadline", "40m", "--max-hosts", "3"}, "deadline unreachable: even 3 hosts need at least"},
		{[]string{"--deadline", "40m", "--max-hosts", "-1"}, "--max-hosts must be at least 1"},
		{[]string{"--deadline", "40m", "--hosts", "4"}, "flag provided but not defined: -hosts"},
		{[]string{"--deadline", "40m", "--disks", "0"}, "--disks"},
		{[]string{"--deadline", "40m", "--format", "xml"}, `--format: unknown format "xml"`},
		{nil, "size: --deadline is required"},
		{[]string{"--deadline", "40m", "--disks-options", "1,x"}, `--disks-options: "x" is not a positive number of disks`},
		{[]string{"--deadline", "40m", "--disks-options", "2,2"}, "--disks-options: 2 is given twice"},
		{[]string{"--deadline", "40m", "--disks-options", "0,2"}, `--disks-options: "0" is not a positive number`},
		{[]string{"--deadline", "40m", "--disks-options", "1,2", "--disks", "2"}, "give --disks or --disks-options, not both"},
		{[]string{"--deadline", "40m", "--disks-options", "1,2", "--ratio", "2"}, "--ratio: cluster: extra_ratio"},
		{[]string{"--deadline", "40m", "--disks-options", "1,2", "--max-hosts", "2"}, "no candidate cluster meets the deadline; with 2 disks per host"},
		{[]string{"--deadline", "40m", "--time-limit", "-1s"}, "--time-limit must not be negative"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			code, out, errs := packer(t, "", append([]string{"size", "-w", "W3"}, tc.args...)...)
			if code != exitUsage {
				t.Errorf("exit %d, want %d", code, exitUsage)
			}
			refused(t, code, errs, "", tc.want)
			if out != "" {
				t.Errorf("stdout not empty: %s", out)
			}
		})
	}
}

// W3 on 9 hosts takes 22m26s (optimal).
func TestPlanDeadline(t *testing.T) {
	for _, tc := range []struct{ deadline, want string }{
		{"40m", "Deadline 2400.0 s (40m00s): met, 1053.6 s (17m33s) to spare (43.9 %)"},
		{"20m", "Deadline 1200.0 s (20m00s): missed by 146.4 s (2m26s) (12.2 %)"},
	} {
		code, out, errs := packer(t, "", "plan", "-w", "W3", "--deadline", tc.deadline)
		if code != 0 || !strings.Contains(out, tc.want) {
			t.Errorf("--deadline %s: exit %d, output lacks %q:\n%s%s", tc.deadline, code, tc.want, out, errs)
		}
	}
	code, _, errs := packer(t, "", "plan", "-w", "W3", "--deadline", "0")
	refused(t, code, errs, "", "--deadline: must be positive")
}

func TestSizeChart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "size.svg")
	code, _, errs := packer(t, "", "size", "-w", "W3", "--deadline", "40m", "--chart", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	svg, err := os.ReadFile(path)
	if err != nil || !strings.Contains(string(svg), "chosen: 5 hosts") {
		t.Errorf("chart %s: %v, no chosen count", path, err)
	}
	code, _, errs = packer(t, "", "size", "-w", "W3", "--deadline", "40m", "--chart", filepath.Join(t.TempDir(), "size.gif"))
	refused(t, code, errs, "", "unknown picture format")
}
