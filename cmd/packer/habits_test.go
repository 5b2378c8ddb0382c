package main

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/packer-sched/packer/internal/shell"
	"github.com/packer-sched/packer/model"
	"github.com/packer-sched/packer/plan"
)

// commandLines lists every command as the words that name it (plan;
// workloads show), urfave/cli's help command left out.
func commandLines(t *testing.T) [][]string {
	t.Helper()
	var lines [][]string
	var walk func(prefix []string, cmds []*cli.Command)
	walk = func(prefix []string, cmds []*cli.Command) {
		for _, c := range cmds {
			if c.Name == "help" {
				continue
			}
			words := append(slices.Clone(prefix), c.Name)
			lines = append(lines, words)
			walk(words, c.Subcommands)
		}
	}
	walk(nil, newApp(nil, io.Discard, io.Discard).Commands)
	if len(lines) < 20 {
		t.Fatalf("only %d commands: %v", len(lines), lines)
	}
	return lines
}

// TestFlagAfterArgumentEverywhere: on every command, a flag after an
// argument is read as a flag: `packer CMD word --help` shows CMD's help
// and exits 0, where urfave/cli alone took --help for a second argument.
// profile's words after its first argument are the command line it runs,
// so there --help stays an argument (TestNormalArgs).
func TestFlagAfterArgumentEverywhere(t *testing.T) {
	for _, words := range commandLines(t) {
		if words[0] == "profile" {
			continue
		}
		args := append(slices.Clone(words), "word", "--help")
		code, out, errs := packer(t, "", args...)
		name := strings.Join(words, " ")
		if code != 0 || !strings.Contains(out, "packer "+name) || !strings.Contains(out, "--help") {
			t.Errorf("packer %s: exit %d, stderr %q, stdout:\n%.300s", strings.Join(args, " "), code, errs, out)
		}
	}
}

// TestNormalArgs: the flags of the command a line names move before its
// arguments, with their values; "--" and what follows stay; profile's
// command line and lines naming no command are left alone.
func TestNormalArgs(t *testing.T) {
	app := newApp(nil, io.Discard, io.Discard)
	for _, c := range []struct{ in, want string }{
		{"workloads show W2 --format json", "workloads show --format json W2"},
		{"workloads merge a.json -o out.json b.json --name=x", "workloads merge -o out.json --name=x a.json b.json"},
		{"workloads merge a.json -- -o b.json", "workloads merge a.json -- -o b.json"},
		{"workloads merge a.json -o - -- -b.json", "workloads merge -o - a.json -- -b.json"},
		{"plan -w - --hosts 4", "plan -w - --hosts 4"},
		{"plan extra -w W2", "plan -w W2 extra"},
		{"plan --time-limit 30 -a pso", "plan --time-limit 30s -a pso"},
		{"plan --time-limit=1.5", "plan --time-limit=1.5s"},
		{"plan --time-limit 5m", "plan --time-limit 5m"},
		{"simulate --heartbeat 5s --tyrex-timer=2m", "simulate --heartbeat 5 --tyrex-timer=120"},
		{"simulate --heartbeat 0 --seed 5s", "simulate --heartbeat 0 --seed 5s"},
		{"workloads import --from 1h x.tsv --to 90m", "workloads import --from 3600 --to 5400 x.tsv"},
		{"profile -j x -n 1,2 sh -c --help", "profile -j x -n 1,2 sh -c --help"},
		{"profile -j x -- sh -c date --nodes 2", "profile -j x -- sh -c date --nodes 2"},
		{"experiment run fig1 --seeds 2", "experiment run --seeds 2 fig1"},
		{"hosts check --inventory i.json x --format json", "hosts check --inventory i.json --format json x"},
		{"plna -w W1", "plna -w W1"},
		{"help plan --format json", "help plan --format json"},
		{"plan --format", "plan --format"},
	} {
		got, _ := shell.NormalArgs(app, append([]string{"packer"}, strings.Fields(c.in)...))
		if strings.Join(got[1:], " ") != c.want {
			t.Errorf("%s: got %q, want %q", c.in, strings.Join(got[1:], " "), c.want)
		}
	}
}

// TestFlagsAfterArguments: the line, and others, work whichever
// side of the argument the flag stands.
func TestFlagsAfterArguments(t *testing.T) {
	_, want, _ := packer(t, "", "workloads", "show", "--format", "json", "W2")
	code, out, errs := packer(t, "", "workloads", "show", "W2", "--format", "json")
	if code != 0 || errs != "" || out != want || !json.Valid([]byte(out)) {
		t.Errorf("workloads show W2 --format json: exit %d, stderr %q", code, errs)
	}
	code, out, errs = packer(t, "", "workloads", "show", "W2", "--format", "table")
	if code != 0 || errs != "" || !strings.Contains(out, "s-kmns-1") || !strings.Contains(out, "1682·n^-0.7000") {
		t.Errorf("workloads show W2 --format table: exit %d, stderr %q, stdout:\n%s", code, errs, out)
	}
	dir := t.TempDir()
	out1 := filepath.Join(dir, "m.json")
	if code, _, errs := packer(t, "", "workloads", "merge", "W1", "-o", out1, twoJobs(t), "--name", "both"); code != 0 {
		t.Fatalf("merge with flags among the names: exit %d: %s", code, errs)
	}
	if w, err := model.ReadWorkloadFile(out1, nil); err != nil || w.Name != "both" || len(w.Jobs) != 7 {
		t.Errorf("merged: %v, %v", w, err)
	}
}

// twoJobs writes a workload of two jobs whose names no built-in uses.
func twoJobs(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "two.json")
	doc := `{"name": "two", "jobs": [{"name": "x1", "model": {"a": 100, "b": -0.5}}, {"name": "x2", "model": {"a": 200, "b": -0.8}}]}`
	if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestImplausibleValues: values past the plausibility bounds exit 2 with
// one line naming the flag (or file and field) and the value, and nothing
// is written.
func TestImplausibleValues(t *testing.T) {
	dir := t.TempDir()
	bad := func(name, doc string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	b := bad("b.json", `{"name": "x", "jobs": [{"name": "a", "model": {"a": 10, "b": -1e308}}]}`)
	a := bad("a.json", `{"name": "x", "jobs": [{"name": "a", "model": {"a": 1e12, "b": -0.5}}]}`)
	out := filepath.Join(dir, "out", "p.json")
	os.Mkdir(filepath.Dir(out), 0o755)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"plan", "--disks", "100000"}, "packer: --disks must be at most 128 (the densest storage servers hold about 100 drives), got 100000"},
		{[]string{"compare", "--algorithms", "pair", "--cores", "100000000"}, "packer: --cores must be between 1 and 4096, got 100000000"},
		{[]string{"plan", "--memory", "1000000000000"}, "packer: --memory must be between 1 and 67108864 (64 TiB), got 1000000000000"},
		{[]string{"plan", "--alpha", "1e300"}, "packer: --alpha must be between 1 and 100, got 1e+300"},
		{[]string{"plan", "--hosts", "1000000"}, "packer: --hosts must be at most 524288 with disks_per_host 2"},
		{[]string{"plan", "-w", b}, "packer: " + b + `: invalid workload: jobs[0]: job "a": model.b must be between -4 and 4 (doubling the VMs changes the runtime at most 16-fold), got -1e+308`},
		{[]string{"compare", "-w", a, "--algorithms", "pair"}, "packer: " + a + `: invalid workload: jobs[0]: job "a": model.a must be between 0.001 and 1e+10 seconds, got 1e+12`},
		{[]string{"workloads", "merge", ""}, `packer: "": no such file, and no built-in workload ""`},
	} {
		args := append(slices.Clone(c.args), "-o", out)
		if c.args[0] == "compare" {
			args = append(slices.Clone(c.args), "--chart", filepath.Join(dir, "out", "c.svg"))
		}
		code, stdout, errs := packer(t, "", args...)
		if code != 2 || stdout != "" || !strings.HasPrefix(errs, c.want) || strings.Count(errs, "\n") != 1 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2 and one line %q", c.args, code, stdout, errs, c.want)
		}
		if entries, _ := os.ReadDir(filepath.Dir(out)); len(entries) > 0 {
			t.Errorf("%v: wrote %s", c.args, entries[0].Name())
		}
	}
}

// TestOneSpelling: compare takes -w as plan and simulate do; a duration
// flag takes a number of seconds and a SECONDS flag a duration, and a bad
// one is one line saying what is taken; -o - writes the document to
// standard output, the report to standard error.
func TestOneSpelling(t *testing.T) {
	for _, flag := range []string{"-w", "--workload", "--workloads"} {
		code, out, errs := packer(t, "", "compare", flag, "W1", "--algorithms", "sequential,pair")
		if code != 0 || errs != "" || !strings.Contains(out, "W1") || strings.Contains(out, "W2") {
			t.Errorf("compare %s W1: exit %d, stderr %q, stdout:\n%s", flag, code, errs, out)
		}
	}
	if code, out, errs := packer(t, "", "simulate", "-w", "W1", "--heartbeat", "5s"); code != 0 || !strings.Contains(out, "heartbeats every 5 s") {
		t.Errorf("--heartbeat 5s: exit %d, stderr %q, stdout:\n%s", code, errs, out)
	}
	if code, out, errs := packer(t, "", "simulate", "-w", "W1", "--heartbeat", "1m"); code != 0 || !strings.Contains(out, "heartbeats every 60 s") {
		t.Errorf("--heartbeat 1m: exit %d, stderr %q, stdout:\n%s", code, errs, out)
	}
	if code, _, errs := packer(t, "", "plan", "-w", "W1", "-a", "pso", "--particles", "20", "--iterations", "5", "--time-limit", "30"); code != 0 {
		t.Errorf("--time-limit 30: exit %d, stderr %q", code, errs)
	}
	for _, c := range []struct{ args, want []string }{
		{[]string{"plan", "--time-limit", "5x"}, []string{`packer: --time-limit: "5x" is not a duration: give 90s, 5m, 1h30m, or a number of seconds`}},
		{[]string{"simulate", "--heartbeat", "soon"}, []string{`packer: --heartbeat: "soon" is not a number of seconds: give 90, or a duration such as 90s, 5m, 1h30m`}},
	} {
		code, out, errs := packer(t, "", c.args...)
		if code != 2 || out != "" || errs != c.want[0]+"\n" {
			t.Errorf("%v: exit %d, stderr %q", c.args, code, errs)
		}
	}

	// -o -: the plan document alone on standard output.
	code, out, errs := packer(t, "", "plan", "-w", "W2", "-a", "pair", "-o", "-")
	pl, err := plan.Parse([]byte(out), "stdout")
	if code != 0 || err != nil || pl.Workload != "W2" || !strings.Contains(errs, "Makespan:") {
		t.Errorf("plan -o -: exit %d, %v, stderr:\n%s", code, err, errs)
	}
	code, out, errs = packer(t, "", "plan", "-w", "W2", "-a", "pair", "-o", "-", "--format", "json")
	if pl, err := plan.Parse([]byte(out), "stdout"); code != 0 || err != nil || pl.Workload != "W2" || errs != "" {
		t.Errorf("plan -o - --format json: exit %d, %v, stderr:\n%s", code, err, errs)
	}
	code, out, errs = packer(t, "", "workloads", "merge", "W1", twoJobs(t), "-o", "-")
	if w, err := model.ParseWorkload([]byte(out), "stdout"); code != 0 || err != nil || len(w.Jobs) != 7 {
		t.Errorf("workloads merge -o -: exit %d, %v, stderr %q", code, err, errs)
	}
	// Elsewhere "-" is still no file name.
	if code, _, errs := packer(t, "", "plan", "--chart", "-"); code != 2 || !strings.Contains(errs, `"-" is not taken as standard output here`) {
		t.Errorf("--chart -: exit %d, %q", code, errs)
	}
}

// TestHelpDefaults: every command's help shows at most one default per
// flag, none for a switch that is off, and no "(default: 0)" where the
// usage does not say what 0 means (--phase counts from 1); durations and
// SECONDS say which forms they take.
func TestHelpDefaults(t *testing.T) {
	flagLine := regexp.MustCompile(`^\s+--`)
	durationFlag := regexp.MustCompile(`^\s+--[a-z-]+ D[ ,]`)
	zeroMeaning := regexp.MustCompile(`(^|[^0-9.])0:`)
	seen := 0
	for _, words := range commandLines(t) {
		_, out, _ := packer(t, "", append(slices.Clone(words), "--help")...)
		for _, line := range strings.Split(out, "\n") {
			if !flagLine.MatchString(line) {
				continue
			}
			seen++
			if strings.Count(line, "(default") > 1 || strings.Contains(line, "(default: false)") ||
				(strings.Contains(line, "(default: 0)") || strings.Contains(line, "(default: 0s)")) && !zeroMeaning.MatchString(line) {
				t.Errorf("packer %s --help:\n%s", strings.Join(words, " "), line)
			}
			if durationFlag.MatchString(line) && !strings.Contains(line, "[a duration: 90s, 5m, 1h30m, or seconds]") && !strings.Contains(line, "90m") {
				t.Errorf("packer %s --help: a duration that does not say its forms:\n%s", strings.Join(words, " "), line)
			}
		}
	}
	_, out, _ := packer(t, "", "apply", "--help")
	if i := strings.Index(out, "--phase N"); i < 0 || strings.Contains(strings.SplitN(out[i:], "\n", 2)[0], "default") {
		t.Errorf("apply --help: --phase shows a default:\n%s", out)
	}
	if seen < 100 {
		t.Errorf("only %d flag lines seen", seen)
	}
}

// TestVersionSaysWhichPacker: --version and version name this packer and
// say it is not HashiCorp's.
func TestVersionSaysWhichPacker(t *testing.T) {
	for _, args := range [][]string{{"--version"}, {"version"}} {
		code, out, errs := packer(t, "", args...)
		if code != 0 || errs != "" || !strings.HasPrefix(out, "packer version ") || !strings.Contains(out, "job-placement planner") ||
			!strings.HasSuffix(out, "not HashiCorp Packer\n") || strings.Count(out, "\n") != 1 {
			t.Errorf("packer %s: exit %d, stdout %q, stderr %q", args[0], code, out, errs)
		}
	}
}
