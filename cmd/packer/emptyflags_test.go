package main

import (
	"io"
	"os"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

// fileFlagCase is one file flag of one command, as typed: the command's
// words (sweep run) and the flag's name, with the required flags it needs
// besides.
type fileFlagCase struct {
	words    []string
	flag     string
	required []cli.Flag
}

// requiredValue is a value for a required flag other than the one tested: a
// number for a number, else a name of nothing that exists.
func requiredValue(f cli.Flag) string {
	switch f.(type) {
	case *cli.IntFlag, *cli.Int64Flag, *cli.UintFlag, *cli.Uint64Flag, *cli.Float64Flag:
		return "1"
	}
	return "no-such-" + f.Names()[0]
}

// fileFlagCases finds every file-taking flag of every command from the
// command definitions (fileFlag), so that a flag added later is covered.
func fileFlagCases(cmds []*cli.Command, parent []string) []fileFlagCase {
	var out []fileFlagCase
	for _, c := range cmds {
		if c.Name == "help" {
			continue
		}
		words := append(append([]string{}, parent...), c.Name)
		var required []cli.Flag
		for _, f := range c.Flags {
			if r, ok := f.(cli.RequiredFlag); ok && r.IsRequired() {
				required = append(required, f)
			}
		}
		for _, f := range c.Flags {
			if fileFlag(f) != "" {
				out = append(out, fileFlagCase{words, f.Names()[0], required})
			}
		}
		out = append(out, fileFlagCases(c.Subcommands, words)...)
	}
	return out
}

// TestEmptyFileFlags: every file flag of every command given ” is one
// line naming the command and the flag, exit 2, and nothing is run or
// written, where `simulate -w ”` used to simulate W1 and `fit -i ”` said
// "open : no such file". The other required flags get a name that does not
// exist, so that a check that let ” through would fail on them instead.
func TestEmptyFileFlags(t *testing.T) {
	t.Chdir(t.TempDir())
	cases := fileFlagCases(newApp(nil, io.Discard, io.Discard).Commands, nil)
	seen := map[string]bool{}
	for _, tc := range cases {
		seen[strings.Join(tc.words, " ")+" --"+tc.flag] = true
	}
	// The flags the issue names, and one of each kind, must be among those
	// found: a definition that lost its FILE placeholder would drop out.
	for _, want := range []string{"simulate --workload", "simulate --plan", "fit --observations", "fit --check",
		"report --simulation", "report --plan", "plan --workload", "plan --output", "compare --workloads",
		"sweep run --out", "hosts check --inventory", "apply --state", "workloads import --topology"} {
		if !seen[want] {
			t.Errorf("%s is not found as a file flag", want)
		}
	}
	for _, tc := range cases {
		args := append([]string{}, tc.words...)
		for _, r := range tc.required {
			if r.Names()[0] != tc.flag {
				args = append(args, "--"+r.Names()[0], requiredValue(r))
			}
		}
		args = append(args, "--"+tc.flag, "")
		code, out, errs := packer(t, "", args...)
		want := strings.Join(tc.words, " ") + ": --" + tc.flag + " is empty: name a "
		if code != exitUsage || !strings.Contains(errs, want) || strings.Count(errs, "\n") != 1 || out != "" {
			t.Errorf("packer %q: exit %d, stdout %q, stderr %q; want exit 2 and one line containing %q", args, code, out, errs, want)
		}
		if left, _ := os.ReadDir("."); len(left) > 0 {
			t.Fatalf("packer %q left %s behind", args, left[0].Name())
		}
	}
	if len(cases) < 30 {
		t.Errorf("only %d file flags found", len(cases))
	}
}

// TestEmptyFileFlagSpellings: an alias, a flag after the arguments, one of
// several values of a repeated flag, and --flag= are refused alike; a flag
// that names no file (--name ”) is left to its command.
func TestEmptyFileFlagSpellings(t *testing.T) {
	t.Chdir(t.TempDir())
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"simulate", "-w", ""}, "packer: simulate: --workload is empty: name a workload or workload file, or leave the flag out\n"},
		{[]string{"simulate", "--plan="}, "packer: simulate: --plan is empty: name a file, or leave the flag out\n"},
		{[]string{"fit", "-i", "a.csv", "-i", ""}, "packer: fit: --observations is empty: name a file, or leave the flag out\n"},
		{[]string{"report", "--plan", "", "-o", "r.html"}, "packer: report: --plan is empty: name a file\n"},
		{[]string{"workloads", "show", "W1", "--format", "json", "-w", ""}, "packer: workloads show: flag provided but not defined: -w (see: packer workloads show --help)\n"},
		{[]string{"workloads", "merge", "W1", "W2", "-o", ""}, "packer: workloads merge: --output is empty: name a file, or leave the flag out\n"},
	} {
		code, out, errs := packer(t, "", tc.args...)
		if code != exitUsage || errs != tc.want || out != "" {
			t.Errorf("packer %q: exit %d, stdout %q, stderr %q; want exit 2 and %q", tc.args, code, out, errs, tc.want)
		}
	}
	// An empty workload name is not a file flag's, and its command says so.
	code, _, errs := packer(t, "", "workloads", "merge", "W1", "W2", "--name", "")
	if code != exitUsage || strings.Count(errs, "\n") != 1 || strings.HasPrefix(errs, "packer: : ") {
		t.Errorf("merge --name '': exit %d, stderr %q", code, errs)
	}
}

// TestOpenInputEmpty: fit's streaming readers say an empty name is empty
// (the flag check comes first on the command line; this is the reader's own
// guard).
func TestOpenInputEmpty(t *testing.T) {
	if _, err := openInput("check", ""); err == nil || err.Error() != "--check: the file name is empty" || exitCode(err) != exitUsage {
		t.Errorf("openInput(\"\"): %v", err)
	}
}

// TestUsageHintNamesTheProgram: renamed (jpacker, beside HashiCorp's
// packer), the usage hint names the program as it was run.
func TestUsageHintNamesTheProgram(t *testing.T) {
	for _, tc := range []struct{ arg0, want string }{
		{"/usr/local/bin/jpacker", "jpacker: plan: flag provided but not defined: -nosuch (see: jpacker plan --help)\n"},
		{"packer", "packer: plan: flag provided but not defined: -nosuch (see: packer plan --help)\n"},
	} {
		var out, errs strings.Builder
		code := run([]string{tc.arg0, "plan", "--nosuch"}, strings.NewReader(""), &out, &errs)
		if code != exitUsage || errs.String() != tc.want {
			t.Errorf("%s: exit %d, stderr %q; want %q", tc.arg0, code, errs.String(), tc.want)
		}
	}
}
