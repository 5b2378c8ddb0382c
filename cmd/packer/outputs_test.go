package main

import (
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/packer-sched/packer/plan"
)

// TestOutputRefusesAFormatName: kubectl's habit, -o json, must not quietly
// write a file called json; every command with an output flag refuses it.
func TestOutputRefusesAFormatName(t *testing.T) {
	abs := func(p string) string {
		a, err := filepath.Abs(p)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	fb09, obs := abs(importFB2009), abs(filepath.Join("testdata", "fit-observations.csv"))
	dir := t.TempDir()
	t.Chdir(dir)
	if code, _, errs := packer(t, "", "plan", "-o", "./w1.json"); code != 0 {
		t.Fatalf("plan -o ./w1.json: exit %d: %s", code, errs)
	}
	for _, args := range [][]string{
		{"plan", "-o", "json"},
		{"plan", "--export-lp", "text"},
		{"workloads", "merge", "W1", "-o", "yaml"},
		{"workloads", "import", "--input-format", "swim", fb09, "-o", "json"},
		{"workloads", "import", "--input-format", "swim", fb09, "--hybs", "text"},
		{"fit", "--observations", obs, "-o", "json"},
		{"profile", "--job", "j", "--nodes", "1,2", "-o", "json", "--", "true"},
		{"report", "--plan", "w1.json", "-o", "wide"},
		{"simulate", "--trace", "csv"},
		{"simulate", "--jobs-csv", "csv"},
	} {
		code, _, errs := packer(t, "", args...)
		name := args[len(args)-1]
		if args[0] == "profile" {
			name = "json"
		}
		if code != 2 || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, " "+name+": looks like a format, not a file") || !strings.Contains(errs, "./"+name) {
			t.Errorf("packer %s: exit %d, stderr %q", strings.Join(args, " "), code, errs)
		}
		if _, err := os.Stat(name); err == nil {
			t.Errorf("packer %s wrote a file called %s", strings.Join(args, " "), name)
			os.Remove(name)
		}
	}
	// ./json is a path: the file is written.
	if code, _, errs := packer(t, "", "plan", "-o", "./json"); code != 0 {
		t.Errorf("plan -o ./json: exit %d: %s", code, errs)
	} else if _, err := plan.ReadFile("json"); err != nil {
		t.Error(err)
	}
}

// TestOutputToDevNull: as root, a rename over /dev/null would replace the
// device for every program on the machine.
func TestOutputToDevNull(t *testing.T) {
	for _, args := range [][]string{
		{"plan", "-o", os.DevNull, "--export-lp", os.DevNull},
		{"simulate", "--jobs-csv", os.DevNull, "--trace", os.DevNull},
	} {
		if code, _, errs := packer(t, "", args...); code != 0 {
			t.Errorf("packer %s: exit %d: %s", strings.Join(args, " "), code, errs)
		}
		if st, err := os.Lstat(os.DevNull); err != nil || st.Mode()&fs.ModeCharDevice == 0 {
			t.Fatalf("after packer %s, %s is %v (%v)", strings.Join(args, " "), os.DevNull, st.Mode(), err)
		}
	}
}

// TestOutputToFIFO: packer plan -o >(jq .) hands packer a pipe; the plan
// goes into it and the pipe stays a pipe.
func TestOutputToFIFO(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "plan.pipe")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	got := make(chan []byte, 1)
	go func() {
		f, err := os.Open(fifo)
		if err != nil {
			got <- nil
			return
		}
		defer f.Close()
		b, _ := io.ReadAll(f)
		got <- b
	}()
	if code, _, errs := packer(t, "", "plan", "-w", "W3", "-o", fifo); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	select {
	case b := <-got:
		if pl, err := plan.Parse(b, fifo); err != nil || pl.Workload != "W3" {
			t.Errorf("the reader got %d bytes: %v", len(b), err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("nothing came through the FIFO in 10 s")
	}
	if st, err := os.Lstat(fifo); err != nil || st.Mode()&fs.ModeNamedPipe == 0 {
		t.Errorf("%s is now %v (%v)", fifo, st.Mode(), err)
	}
}

func TestOutputToSocketRefused(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "s")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	code, out, errs := packer(t, "", "plan", "-o", sock)
	if code != 2 || out != "" || errs != "packer: --output "+sock+": is a socket; give a file, a FIFO or a character device\n" {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errs)
	}
	if st, err := os.Lstat(sock); err != nil || st.Mode()&fs.ModeSocket == 0 {
		t.Errorf("the socket is now %v (%v)", st.Mode(), err)
	}
}
