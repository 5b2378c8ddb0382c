package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/packer-sched/packer/internal/plantest"
	"github.com/packer-sched/packer/model"
	"github.com/packer-sched/packer/plan"
	"github.com/packer-sched/packer/workloads"
	"github.com/packer-sched/packer/xenlibvirt"
	"github.com/packer-sched/packer/xenlibvirt/libvirttest"
)

// simulated points packer's connector at two simulated paper hosts for the
// test and writes W2's plan for them and their inventory into dir.
func simulated(t *testing.T, specs ...libvirttest.HostSpec) (c *libvirttest.Cluster, planPath, invPath string, pl *plan.Plan) {
	t.Helper()
	c = libvirttest.NewCluster(t, 2, xenlibvirt.KVM, specs...)
	old := connector
	connector = c.Connector(nil)
	t.Cleanup(func() { connector = old })
	w, err := workloads.Get("W2")
	if err != nil {
		t.Fatal(err)
	}
	cl := model.PaperCluster()
	cl.Hosts = 2
	pl = plantest.Pair(t, w, cl)
	dir := t.TempDir()
	doc, err := pl.MarshalIndent()
	if err != nil {
		t.Fatal(err)
	}
	planPath = filepath.Join(dir, "plan.json")
	invPath = filepath.Join(dir, "inventory.json")
	inv, err := json.MarshalIndent(c.Inventory, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	for path, data := range map[string][]byte{planPath: doc, invPath: inv} {
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return c, planPath, invPath, pl
}

// scrub replaces the temporary directory in output with $DIR and squeezes
// the table's padding, whose width follows the directory's length, so that
// the golden file holds on any machine.
func scrub(s, dir string) string {
	s = strings.ReplaceAll(s, dir, "$DIR")
	s = regexp.MustCompile(`─+`).ReplaceAllString(s, "─")
	return regexp.MustCompile(` +│`).ReplaceAllString(s, " │")
}

func TestHostsCheckApplyStatusDestroy(t *testing.T) {
	c, planPath, invPath, pl := simulated(t)
	libvirttest.NewAppliance(t, c, nil)
	dir := filepath.Dir(c.Inventory.Hosts[0].URI[len("test://"):])
	state := filepath.Join(t.TempDir(), "state.json")

	code, out, errs := packer(t, "", "hosts", "check", "--inventory", invPath, "--plan", planPath)
	if code != 0 || errs != "" {
		t.Fatalf("hosts check: exit %d: %s", code, errs)
	}
	golden(t, "hosts-check.txt", scrub(out, dir))

	code, out, errs = packer(t, "", "apply", "--plan", planPath, "--inventory", invPath, "--state", state, "--dry-run")
	if code != 0 || errs != "" {
		t.Fatalf("dry run: exit %d: %s", code, errs)
	}
	// W2 on 2 hosts: 6 + 4 + 4 = 14 domains.
	if n := strings.Count(out, "<domain type=\"kvm\">"); n != 14 {
		t.Errorf("dry run shows %d domains, want 14", n)
	}
	if _, err := os.Stat(state); !os.IsNotExist(err) {
		t.Errorf("dry run wrote %s", state)
	}

	code, out, errs = packer(t, "", "apply", "--plan", planPath, "--inventory", invPath, "--state", state, "--auto-approve")
	if code != 0 || errs != "" {
		t.Fatalf("apply: exit %d: %s\n%s", code, errs, out)
	}
	if !strings.HasSuffix(out, "plan "+pl.ID+": done; 14 VMs run, none left (journal "+state+")\n") {
		t.Errorf("apply output ends:\n%s", out[max(0, len(out)-300):])
	}
	// Phases are counted from 1 in the log, as packer plan prints them.
	for _, p := range []string{"1", "2", "3"} {
		if !strings.Contains(out, "phase "+p+" done") {
			t.Errorf("apply output lacks %q", "phase "+p+" done")
		}
	}

	code, out, errs = packer(t, "", "status", "--state", state)
	if code != 0 || errs != "" {
		t.Fatalf("status: exit %d: %s", code, errs)
	}
	out = strings.ReplaceAll(out, filepath.Dir(state), "DIR")
	// Measured times vary, all under 10 s on the test driver (the predicted
	// ones are over 100 s, and the ratios 0.00).
	out = regexp.MustCompile(`\b\d\.\d\b`).ReplaceAllString(out, "N.N")
	golden(t, "status-done.txt", regexp.MustCompile(`step \d+`).ReplaceAllString(out, "step N"))

	code, out, errs = packer(t, "", "destroy", "--state", state)
	if code != 0 || errs != "" || out != "destroy done\nplan "+pl.ID+": 0 VMs removed, 0 already gone; nothing of it left (journal "+state+")\n" {
		t.Fatalf("destroy: exit %d: %s\n%s", code, errs, out)
	}
}

func TestApplyBadInputExits2(t *testing.T) {
	c, planPath, invPath, _ := simulated(t, libvirttest.HostSpec{}, libvirttest.HostSpec{MemoryMiB: 4096})
	bad := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(bad, []byte(`{"image": "/x", "hosts": [{"name": "h0"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"apply", "--plan", planPath, "--inventory", bad},
			"packer: " + bad + `: invalid inventory: hosts[0].uri: "" is not a libvirt URI (like qemu:///system)`},
		// h1 reports 4096 MiB: phase 0's 3 VMs × 2730 MiB = 8190 do not fit.
		{[]string{"apply", "--plan", planPath, "--inventory", invPath},
			"packer: " + planPath + " and " + invPath + ": plan does not fit the hosts: host h1: phase 1 needs 8190 MiB of memory (3 VMs × 2730), the inventory says 4096 (and 1 more; see packer hosts check)"},
		{[]string{"apply", "--plan", planPath, "--inventory", invPath, "--phase", "4"}, "packer: --phase: 4, plan w2-045a8bb1 has phases 1..3"},
		{[]string{"status", "--state", bad}, "packer: " + bad + ": invalid state file: version: 0, this packer reads versions 1 to 2"},
		{[]string{"apply", "--plan", planPath, "--inventory", invPath, "--resume", "--state", filepath.Join(filepath.Dir(bad), "none.json")},
			"packer: --resume: no state file " + filepath.Join(filepath.Dir(bad), "none.json") + " to resume from (--state names it)"},
	} {
		code, out, errs := packer(t, "", tc.args...)
		if code != 2 || strings.TrimSpace(errs) != tc.want || strings.Count(errs, "\n") != 1 {
			t.Errorf("%v: exit %d, stderr\n got %q\nwant %q\nstdout %s", tc.args, code, errs, tc.want, out)
		}
	}
	assertNoPackerDomains(t, c)
}

func assertNoPackerDomains(t *testing.T, c *libvirttest.Cluster) { t.Helper(); c.AssertNoPackerLeft(t) }

// TestApplyInterruptKeepsThenDestroy sends packer SIGINT once phase 0's six
// VMs are up, with --keep-on-interrupt: it exits 1 leaving them running and
// journaled; status lists them; destroy removes them.
func TestApplyInterruptKeepsThenDestroy(t *testing.T) {
	c, planPath, invPath, pl := simulated(t)
	// Should the signal ever outlive packer's own handler, it must not
	// kill the test binary.
	guard := make(chan os.Signal, 1)
	signal.Notify(guard, os.Interrupt)
	defer signal.Stop(guard)
	var mu sync.Mutex
	booted := 0
	libvirttest.NewAppliance(t, c, func(string) bool {
		mu.Lock()
		defer mu.Unlock()
		if booted++; booted == 6 {
			_ = syscall.Kill(os.Getpid(), syscall.SIGINT)
		}
		return true // jobs never end
	})
	state := filepath.Join(t.TempDir(), "state.json")
	code, _, errs := packer(t, "", "apply", "--plan", planPath, "--inventory", invPath, "--state", state, "--keep-on-interrupt", "--auto-approve")
	if code != 1 || !strings.HasPrefix(errs, "packer: apply: interrupted") {
		t.Fatalf("apply: exit %d, stderr %q", code, errs)
	}
	code, out, _ := packer(t, "", "status", "--state", state)
	if code != 0 || !strings.Contains(out, "plan "+pl.ID+": interrupted") || !strings.Contains(out, "6 VMs may still exist") {
		t.Errorf("status: exit %d\n%s", code, out)
	}
	code, out, errs = packer(t, "", "destroy", "--state", state, "--auto-approve")
	if code != 0 || !strings.HasSuffix(out, "6 VMs removed, 0 already gone; nothing of it left (journal "+state+")\n") {
		t.Errorf("destroy: exit %d %s\n%s", code, errs, out)
	}
	assertNoPackerDomains(t, c)
}

func TestHostsCheckUnreachableAndMisfit(t *testing.T) {
	c, planPath, _, pl := simulated(t, libvirttest.HostSpec{}, libvirttest.HostSpec{CPUs: 2})
	// A third inventory host that no connection reaches, and h1 declaring
	// the 4 cores its libvirt does not have.
	inv := *c.Inventory
	inv.Hosts = append(append([]xenlibvirt.InventoryHost(nil), inv.Hosts...), xenlibvirt.InventoryHost{Name: "h2", URI: "test:///nowhere.xml",
		Hypervisor: "kvm", Cores: 4, MemoryMiB: 8192, Disks: []string{"disk0", "disk1"}, Network: "default"})
	inv.Hosts[1].Cores = 4
	invPath := writeInventory(t, filepath.Join(t.TempDir(), "inventory.json"), &inv)
	code, out, errs := packer(t, "", "hosts", "check", "--inventory", invPath, "--plan", planPath)
	// h1: phase 0 puts 2 host VMs × 2 vCPUs = 4 on its 2 CPUs.
	wantErr := "packer: hosts check: plan " + pl.ID + " does not fit (1 problems)\n"
	if code != 1 || errs != wantErr {
		t.Errorf("exit %d, stderr %q, want 1, %q", code, errs, wantErr)
	}
	// Past 100 columns the table's columns go in two tables, one under the
	// other: the host's row holds its URI in one, the answer in the other.
	for _, want := range []string{"│ h2   │ test:///nowhere.xml │", "│ h2   │ no: no simulated host with URI test:///nowhere.xml",
		"plan " + pl.ID + " does not fit:\n  host h1: phase 1 needs 4 CPUs (2 VMs × 2), libvirt says 2\n"} {
		if !strings.Contains(regexp.MustCompile(` +│`).ReplaceAllString(out, " │"), regexp.MustCompile(` +│`).ReplaceAllString(want, " │")) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// Without the plan only reachability counts.
	code, _, errs = packer(t, "", "hosts", "check", "--inventory", invPath, "--format", "json")
	if code != 1 || errs != "packer: hosts check: 1 of 3 hosts unreachable: h2 (test:///nowhere.xml): no simulated host with URI test:///nowhere.xml\n" {
		t.Errorf("exit %d, stderr %q", code, errs)
	}
}

func TestStatusJSONIsTheJournal(t *testing.T) {
	c, planPath, invPath, pl := simulated(t)
	libvirttest.NewAppliance(t, c, nil)
	state := filepath.Join(t.TempDir(), "state.json")
	if code, _, errs := packer(t, "", "apply", "--plan", planPath, "--inventory", invPath, "--state", state, "--phase", "2", "--auto-approve"); code != 0 {
		t.Fatalf("apply --phase 2: %s", errs)
	}
	code, out, _ := packer(t, "", "status", "--state", state, "--format", "json")
	onDisk, err := os.ReadFile(state)
	if code != 0 || err != nil || out != string(onDisk) {
		t.Fatalf("status --format json (exit %d) differs from the state file", code)
	}
	j, err := xenlibvirt.ParseJournal([]byte(out), "status")
	if err != nil {
		t.Fatal(err)
	}
	// Only phase 2, index 1 in the journal (s-srt-2 on 1 VM, s-dsim-1 on 3), ran.
	if j.Plan != pl.ID || j.Status != "pending" || j.Phases[1].Status != "done" || len(j.VMs) != 4 {
		t.Errorf("journal: plan %s status %s phase 1 %s, %d VMs", j.Plan, j.Status, j.Phases[1].Status, len(j.VMs))
	}
}

// walkStep is one command of the README's operator walkthrough.
type walkStep struct {
	line string
	args []string
	exit int
}

// readmeWalkthrough reads the commands of the README's operator walkthrough:
// the sh block after the "walkthrough" marker, one "packer ARGS" a line, an
// expected exit code other than 0 noted as "# exits N". The build line is
// the one other line it may hold.
func readmeWalkthrough(t *testing.T) []walkStep {
	t.Helper()
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(data), "<!-- walkthrough: ")
	if !ok {
		t.Fatal("README.md has no walkthrough marker")
	}
	_, rest, _ = strings.Cut(rest, "```sh\n")
	block, _, _ := strings.Cut(rest, "```")
	var steps []walkStep
	for _, line := range strings.Split(strings.TrimSpace(block), "\n") {
		cmd, comment, _ := strings.Cut(line, "#")
		st := walkStep{line: line, args: strings.Fields(cmd)}
		switch {
		case strings.HasPrefix(line, "go build "):
			continue
		case len(st.args) == 0 || st.args[0] != "packer":
			t.Fatalf("walkthrough line %q is no packer command", line)
		}
		if _, err := fmt.Sscanf(strings.TrimSpace(comment), "exits %d", &st.exit); comment != "" && err != nil {
			t.Fatalf("walkthrough line %q: comment %q is not \"exits N\"", line, comment)
		}
		st.args = st.args[1:]
		steps = append(steps, st)
	}
	return steps
}

// keptHosts opens each host once and keeps it for the test, as a libvirtd
// keeps its domains between commands; the test driver forgets everything
// when a connection closes. Commands connect to several hosts at once
// (each connection on a goroutine of its own, WithTimeout), so mu guards
// conns: unguarded, two first connections wrote the map together and the
// runtime ended the test binary ("concurrent map writes").
type keptHosts struct {
	t     *testing.T
	mu    sync.Mutex
	conns map[string]*xenlibvirt.Conn
}

func (k *keptHosts) Connect(h xenlibvirt.InventoryHost) (xenlibvirt.Hypervisor, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if c, ok := k.conns[h.URI]; ok {
		return sharedConn{c}, nil
	}
	c, err := xenlibvirt.Open(h.URI)
	if err != nil {
		return nil, err
	}
	k.t.Cleanup(func() { c.Close() })
	k.conns[h.URI] = c
	return sharedConn{c}, nil
}

type sharedConn struct{ *xenlibvirt.Conn }

func (sharedConn) Close() error { return nil }

// TestReadmeWalkthrough runs the README's operator walkthrough, command by
// command as written, in a copy of examples/: once as in a shell, where every
// command opens the test driver's node files afresh (destroy finds the VMs
// already gone), once with hosts that keep their state between commands as
// a libvirtd does (destroy removes them). Its plan command must reproduce the
// checked-in examples/small.plan.json (-update rewrites it).
func TestReadmeWalkthrough(t *testing.T) {
	steps := readmeWalkthrough(t)
	planPath, err := filepath.Abs("../../examples/small.plan.json")
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(planPath)
	if err != nil {
		t.Fatal(err)
	}
	for _, kept := range []bool{false, true} {
		t.Run(map[bool]string{false: "fresh", true: "kept"}[kept], func(t *testing.T) {
			dir := t.TempDir()
			if err := os.CopyFS(filepath.Join(dir, "examples"), os.DirFS("../../examples")); err != nil {
				t.Fatal(err)
			}
			k := &keptHosts{t: t, conns: map[string]*xenlibvirt.Conn{}}
			if kept {
				old := connector
				connector = k
				t.Cleanup(func() { connector = old })
			}
			t.Chdir(dir)
			var outs []string
			for _, st := range steps {
				code, out, errs := packer(t, "", st.args...)
				if code != st.exit {
					t.Fatalf("%s: exit %d, want %d\n%s%s", st.line, code, st.exit, out, errs)
				}
				outs = append(outs, out)
			}
			checkWalkthrough(t, steps, outs, kept, k)
			got, err := os.ReadFile("examples/small.plan.json")
			switch {
			case err != nil:
				t.Fatal(err)
			case *update && !kept:
				if err := os.WriteFile(planPath, got, 0o644); err != nil {
					t.Fatal(err)
				}
			case string(got) != string(want):
				t.Errorf("examples/small.plan.json is stale: the walkthrough's plan command writes another plan; copy it from\n%s", got)
			}
		})
	}
}

// checkWalkthrough checks what the walkthrough promises: status after apply
// lists the VMs apply left, destroy removes them (or finds them gone on a
// host that forgot them), and status then shows nothing left.
func checkWalkthrough(t *testing.T, steps []walkStep, outs []string, kept bool, k *keptHosts) {
	t.Helper()
	var sawVMs, destroyed, empty bool
	for i, st := range steps {
		out := outs[i]
		switch st.args[0] {
		case "status":
			if destroyed {
				empty = strings.Contains(out, "no VMs or disks left on any host")
			} else {
				sawVMs = sawVMs || strings.Contains(out, "2 VMs may still exist")
			}
		case "destroy":
			want := "0 VMs removed, 2 already gone"
			if kept {
				want = "2 VMs removed, 0 already gone"
			}
			destroyed = strings.Contains(out, want)
			if !destroyed {
				t.Errorf("%s: output lacks %q:\n%s", st.line, want, out)
			}
		}
	}
	if !sawVMs || !destroyed || !empty {
		t.Errorf("walkthrough: status showed the VMs %v, destroy removed them %v, status then empty %v", sawVMs, destroyed, empty)
	}
	for uri, c := range k.conns {
		doms, err := c.Libvirt().ListAllDomains(0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range doms {
			name, _ := d.GetName()
			if strings.HasPrefix(name, "packer-") {
				t.Errorf("%s: %s left after destroy", uri, name)
			}
			d.Free()
		}
	}
}

// TestPhaseNumbersAgree holds packer plan and packer apply --phase to one
// count: the plan prints Phase 1 and Phase 2, --phase 2 applies the second
// (its VMs carry p2), and --phase 3 is refused naming 1..2.
func TestPhaseNumbersAgree(t *testing.T) {
	code, out, errs := packer(t, "", "plan", "-w", "../../examples/small.json", "-a", "sequential", "-P", "2", "-k", "1", "-r", "1",
		"--cores", "1", "--memory", "512")
	if code != 0 || !strings.Contains(out, "Phase 1:") || !strings.Contains(out, "Phase 2:") || strings.Contains(out, "Phase 0") {
		t.Fatalf("plan: exit %d %s\n%s", code, errs, out)
	}
	// The second phase runs sort (the plan's table above lists it under Phase 2).
	_, phase2, _ := strings.Cut(out, "Phase 2:")
	if !strings.Contains(phase2, "sort") {
		t.Fatalf("plan's Phase 2 does not run sort:\n%s", out)
	}
	inv, err := filepath.Abs("../../examples/testdriver/inventory.json")
	if err != nil {
		t.Fatal(err)
	}
	state := filepath.Join(t.TempDir(), "state.json")
	args := []string{"apply", "--plan", "../../examples/small.plan.json", "--inventory", inv, "--state", state, "--auto-approve", "--dry-run"}
	code, out, errs = packer(t, "", append(args, "--phase", "2")...)
	if code != 0 || !strings.Contains(out, "\n## phase 2: 2 VMs\n") || strings.Contains(out, "## phase 1") ||
		!strings.Contains(out, "p2 h0 packer-small-8f228143-p2-sort-0: start") {
		t.Errorf("apply --phase 2: exit %d %s\n%s", code, errs, out)
	}
	code, _, errs = packer(t, "", append(args, "--phase", "3")...)
	if code != 2 || errs != "packer: --phase: 3, plan small-8f228143 has phases 1..2\n" {
		t.Errorf("apply --phase 3: exit %d, %q", code, errs)
	}
}

// TestHostsCheckGivesUpOnASilentHost: a host whose libvirt URI points at a
// local listener that accepts the connection and never answers is reported
// unreachable after --connect-timeout, exit 1, in one line naming the host.
func TestHostsCheckGivesUpOnASilentHost(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var accepted []net.Conn
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			accepted = append(accepted, conn) // held open, never answered
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range accepted {
			c.Close() // lets libvirt's abandoned connect return
		}
	})
	uri := fmt.Sprintf("qemu+tcp://%s/system", ln.Addr())
	inv := fmt.Sprintf(`{"image": "/var/lib/packer/images/appliance.qcow2", "hosts": [
  {"name": "silent", "uri": %q, "hypervisor": "kvm", "cores": 2, "memory_mib": 2048, "disks": ["d0"]}]}`, uri)
	invPath := filepath.Join(t.TempDir(), "inventory.json")
	if err := os.WriteFile(invPath, []byte(inv), 0o644); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	code, _, errs := packer(t, "", "hosts", "check", "--inventory", invPath, "--connect-timeout", "1s")
	took := time.Since(start)
	want := "packer: hosts check: 1 of 1 hosts unreachable: silent (" + uri + "): no answer within 1s\n"
	if code != 1 || errs != want || took > 5*time.Second {
		t.Errorf("exit %d after %v, stderr %q, want 1 within ~1s, %q", code, took.Round(time.Millisecond), errs, want)
	}
}

// TestApplyAndDestroyAsk: apply and destroy say what they will do; without a
// terminal and --auto-approve they refuse (exit 2, nothing changed); on a
// terminal anything but "yes" cancels, "yes" goes on.
func TestApplyAndDestroyAsk(t *testing.T) {
	c, planPath, invPath, pl := simulated(t)
	libvirttest.NewAppliance(t, c, nil)
	state := filepath.Join(t.TempDir(), "state.json")
	apply := []string{"apply", "--plan", planPath, "--inventory", invPath, "--state", state}
	code, out, errs := packer(t, "", apply...)
	if code != 2 || errs != "packer: apply: not asking without a terminal; run it with --auto-approve\n" ||
		!strings.HasPrefix(out, "packer will apply plan "+pl.ID+" (3 phases, 14 VMs) on hosts h0, h1; journal "+state+"\n") {
		t.Errorf("non-interactive apply: exit %d, stderr %q\n%s", code, errs, out)
	}
	if _, err := os.Stat(state); !os.IsNotExist(err) {
		t.Errorf("refused apply wrote %s", state)
	}
	old := stdinIsTerminal
	stdinIsTerminal = func(io.Reader) bool { return true }
	t.Cleanup(func() { stdinIsTerminal = old })
	code, out, errs = packer(t, "no\n", apply...)
	if code != 1 || errs != "packer: apply: cancelled, nothing changed\n" || !strings.HasSuffix(out, "Only 'yes' goes on: ") {
		t.Errorf("apply answered no: exit %d, stderr %q\n%s", code, errs, out)
	}
	assertNoPackerDomains(t, c)
	if code, out, errs = packer(t, "yes\n", apply...); code != 0 || !strings.Contains(out, "done; 14 VMs run") {
		t.Errorf("apply answered yes: exit %d %s\n%s", code, errs, out)
	}
	// Nothing live: destroy has nothing to ask about.
	if code, _, errs = packer(t, "", "destroy", "--state", state); code != 0 {
		t.Errorf("destroy of nothing: exit %d %s", code, errs)
	}
}

// TestStatusAndDestroyFindTheStateFile: without --state, status and destroy
// read the state file apply wrote in the working directory: the plan's with
// --plan, else the only one; of several they name the choice.
func TestStatusAndDestroyFindTheStateFile(t *testing.T) {
	c, planPath, invPath, pl := simulated(t)
	libvirttest.NewAppliance(t, c, nil)
	t.Chdir(t.TempDir())
	if code, _, errs := packer(t, "", "status"); code != 2 || !strings.Contains(errs, "no state file to choose: none named packer-*.state.json in .") {
		t.Errorf("status with no state file: exit %d, %q", code, errs)
	}
	if code, _, errs := packer(t, "", "apply", "--plan", planPath, "--inventory", invPath, "--phase", "1", "--auto-approve"); code != 0 {
		t.Fatalf("apply: %s", errs)
	}
	mine := "packer-" + pl.ID + ".state.json"
	if code, out, errs := packer(t, "", "status"); code != 0 || !strings.HasPrefix(out, "plan "+pl.ID+": pending") {
		t.Errorf("status: exit %d %s\n%s", code, errs, out)
	}
	if err := os.WriteFile("packer-other-00000000.state.json", []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errs := packer(t, "", "status")
	if code != 2 || !strings.Contains(errs, "2 here (packer-other-00000000.state.json, "+mine+"); --state or --plan says which") {
		t.Errorf("status of two: exit %d, %q", code, errs)
	}
	if code, out, errs := packer(t, "", "destroy", "--plan", planPath, "--auto-approve"); code != 0 || !strings.Contains(out, "(journal "+mine+")") {
		t.Errorf("destroy --plan: exit %d %s\n%s", code, errs, out)
	}
}

// TestApplyErrorPrintedOnce: a failed apply's log says the phase and the run
// failed; the error itself is the one line on stderr.
func TestApplyErrorPrintedOnce(t *testing.T) {
	c, planPath, invPath, _ := simulated(t)
	libvirttest.NewAppliance(t, c, func(string) bool { return true }) // jobs never end
	state := filepath.Join(t.TempDir(), "state.json")
	code, out, errs := packer(t, "", "apply", "--plan", planPath, "--inventory", invPath, "--state", state, "--phase-timeout", "300ms", "--auto-approve")
	if code != 1 || strings.Count(out+errs, "phase timed out") != 1 || !strings.HasPrefix(errs, "packer: apply: phase timed out after 300ms") ||
		!strings.Contains(out, "phase 1 failed\napply failed\n") {
		t.Errorf("exit %d, stderr %q\n%s", code, errs, out)
	}
	assertNoPackerDomains(t, c)
}

// writeInventory writes inv as JSON to path and returns the path.
func writeInventory(t *testing.T, path string, inv *xenlibvirt.Inventory) string {
	t.Helper()
	data, err := json.Marshal(inv)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestDestroyFindsWhatACrashLeft: the state file of an apply killed between
// journaling a domain's definition and confirming it (version 2, the VM
// "defining"), and one an older packer left (version 1, "defined"), both
// lead destroy to the overlay and domain on the host: it lists the VM as
// possibly there, removes both, leaves the foreign domain beside them, and
// writes the journal back in the current version.
func TestDestroyFindsWhatACrashLeft(t *testing.T) {
	for _, tc := range []struct {
		version int
		state   string
		listed  string
	}{
		{2, xenlibvirt.StateDefining, "(defining, not confirmed: may exist)"},
		{1, xenlibvirt.StateDefined, "(defined)"},
	} {
		t.Run(fmt.Sprintf("v%d", tc.version), func(t *testing.T) {
			c, _, _, pl := simulated(t)
			c.Foreign(t, 0, "bystander", true)
			hs, err := xenlibvirt.Connect(pl, c.Inventory, c.Connector(nil))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(hs.Close)
			d, err := xenlibvirt.NewDeployment(pl, c.Inventory, hs.Facts)
			if err != nil {
				t.Fatal(err)
			}
			vm := d.Phases[0].VMs[0]
			conn := c.Conns[vm.Host]
			if _, err := conn.CreateOverlay(vm.Pool, vm.Volume, vm.Image, "qcow2", 0); err != nil {
				t.Fatal(err)
			}
			if err := conn.Define(vm.XML); err != nil {
				t.Fatal(err)
			}
			j := xenlibvirt.NewJournal(d)
			j.Status, j.Phases[0].Status = xenlibvirt.StatusRunning, xenlibvirt.StatusRunning
			j.VMs = []xenlibvirt.VMRecord{{Phase: 0, Name: vm.Name, Host: vm.HostName, HostURI: vm.HostURI, Pool: vm.Pool,
				Volume: vm.Volume, Disk: vm.DiskPath, UUID: vm.UUID, State: tc.state, Job: vm.Meta.Job, Index: vm.Meta.Index}}
			doc, err := j.Marshal()
			if err != nil {
				t.Fatal(err)
			}
			if tc.version == 1 {
				doc = []byte(strings.Replace(string(doc), `"version": 2,`, `"version": 1,`, 1))
			}
			state := filepath.Join(t.TempDir(), "state.json")
			if err := os.WriteFile(state, doc, 0o644); err != nil {
				t.Fatal(err)
			}
			code, out, errs := packer(t, "", "destroy", "--state", state, "--auto-approve")
			want := fmt.Sprintf("  %s on %s %s\n", vm.Name, vm.HostName, tc.listed)
			if code != 0 || errs != "" || !strings.Contains(out, want) || !strings.Contains(out, vm.Name+": undefined\n") ||
				!strings.HasSuffix(out, "1 VMs removed, 0 already gone; nothing of it left (journal "+state+")\n") {
				t.Errorf("destroy: exit %d, stderr %q, want %q listed\n%s", code, errs, want, out)
			}
			assertNoPackerDomains(t, c)
			if got := c.Domains(t, 0); len(got) != 1 || got[0] != "bystander*" {
				t.Errorf("host h0 domains %v, want the foreign bystander running", got)
			}
			after, err := os.ReadFile(state)
			if err != nil || !strings.Contains(string(after), `"version": 2,`) {
				t.Errorf("journal after destroy: %v\n%s", err, after)
			}
		})
	}
}
