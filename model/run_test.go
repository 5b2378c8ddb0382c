package model

import (
	"errors"
	"strings"
	"testing"
)

func TestExpandRunWords(t *testing.T) {
	words := map[string]string{"job": "sum", "index": "1", "vms": "3", "master": "sum-0", "hosts": "sum-0 sum-1 sum-2", "master_ip": "10.0.0.10"}
	for _, c := range []struct{ in, want string }{
		{"send {master} 7000", "send sum-0 7000"},
		{"for h in {hosts}; do echo $h; done", "for h in sum-0 sum-1 sum-2; do echo $h; done"},
		// The shell's own braces are left alone: ${x}, { list; }, {A}, {1..3}.
		{"echo ${PORT} {A} {1..3}; { true; }", "echo ${PORT} {A} {1..3}; { true; }"},
		{"{job}-{index}/{vms}@{master_ip}", "sum-1/3@10.0.0.10"},
		{"unclosed {job", "unclosed {job"},
		{"{}", "{}"},
		{"{ip}", ""}, // known, with no value
		// awk's and sed's braces are not near any word: left alone.
		{"awk 'NR==1{print}' | sed '/x/{p}'; {next}", "awk 'NR==1{print}' | sed '/x/{p}'; {next}"},
		{"echo {{master}} is {master}", "echo {master} is sum-0"},
		{"{nodes} = {vms}", "3 = 3"},
	} {
		got, err := ExpandRunWords(c.in, words)
		if err != nil || got != c.want {
			t.Errorf("ExpandRunWords(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
	if _, err := ExpandRunWords("ping {mastr}", words); err == nil || !strings.Contains(err.Error(), "unknown template word {mastr} (did you mean {master}? {{mastr}} writes it as it is)") {
		t.Errorf("a misspelt word: %v, want an error naming it", err)
	}
}

func TestRunSpecCommandFor(t *testing.T) {
	r := RunSpec{Command: "c", Master: "m"}
	if r.CommandFor(0) != "m" || r.CommandFor(1) != "c" || r.CommandFor(7) != "c" {
		t.Errorf("master and command: %q %q", r.CommandFor(0), r.CommandFor(1))
	}
	r = RunSpec{Master: "m", Workers: "w"}
	if r.CommandFor(0) != "m" || r.CommandFor(2) != "w" {
		t.Errorf("master and workers: %q %q", r.CommandFor(0), r.CommandFor(2))
	}
}

func TestRunSpecValidate(t *testing.T) {
	for _, c := range []struct {
		r    RunSpec
		want string // "" for valid
	}{
		{RunSpec{Command: "true"}, ""},
		{RunSpec{Master: "a", Workers: "b", Env: map[string]string{"PORT": "{index}7"}}, ""},
		{RunSpec{Master: "a"}, ""}, // a job of one VM
		{RunSpec{Env: map[string]string{"A": "b"}}, "give command, or master and workers"},
		{RunSpec{Command: "x {jobb}"}, "run.command: unknown template word {jobb}"},
		{RunSpec{Command: "x", Env: map[string]string{"1X": "y"}}, `run.env: "1X" is not a shell variable name`},
		{RunSpec{Command: "x", Env: map[string]string{"PACKER_JOB": "y"}}, "PACKER_* variables are set by packer apply"},
		{RunSpec{Command: "x", Env: map[string]string{"X": "{hots}"}}, "run.env.X: unknown template word {hots} (did you mean {hosts}?"},
		{RunSpec{Command: "x", Image: "hadoop.qcow2"}, `run.image: "hadoop.qcow2" is not an absolute path`},
	} {
		err := c.r.Validate()
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%+v: %v", c.r, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%+v: %v, want %q", c.r, err, c.want)
		}
	}
}

func TestWorkloadRunSpecFields(t *testing.T) {
	base := `{"name": "w", "jobs": [{"name": "a", "model": {"a": 60, "b": -0.5}, "cpu_intensive": true, "io_intensive": false, "run": %s}]}`
	w, err := ParseWorkload([]byte(strings.Replace(base, "%s", `{"master": "m {vms}", "workers": "w {master}"}`, 1)), "w.json")
	if err != nil {
		t.Fatal(err)
	}
	if r := w.Jobs[0].Run; r == nil || r.Master != "m {vms}" || r.Workers != "w {master}" {
		t.Fatalf("run spec read as %+v", r)
	}
	_, err = ParseWorkload([]byte(strings.Replace(base, "%s", `{"comand": "x"}`, 1)), "w.json")
	if !errors.Is(err, ErrFieldTypo) || !strings.Contains(err.Error(), `jobs[0].run: unknown field "comand" (did you mean "command"?)`) {
		t.Errorf("misspelt field: %v", err)
	}
	_, err = ParseWorkload([]byte(strings.Replace(base, "%s", `{"env": {"A": "b"}}`, 1)), "w.json")
	if !errors.Is(err, ErrInvalidWorkload) || !strings.Contains(err.Error(), `w.json: invalid workload: jobs[0]: job "a": run: give command`) {
		t.Errorf("a run spec without a command: %v", err)
	}
}
