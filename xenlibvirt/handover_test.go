package xenlibvirt

import (
	"encoding/base64"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/packer-sched/packer/model"
	"github.com/packer-sched/packer/plan"
)

// sumVM is VM 1 of job "sum" (2 VMs) on 10.77.0.0/24, with its master at .10.
func sumVM(t *testing.T, spec *model.RunSpec) VMDeploy {
	t.Helper()
	vm := VM{Meta: Metadata{Plan: "p-1", Phase: 0, Job: "sum", Role: "primary", Index: 1, Name: "packer-p-1-p1-sum-1"},
		Name: "packer-p-1-p1-sum-1", Hostname: "sum-1", MasterHostname: "sum-0", MAC: "52:54:00:aa:bb:cc",
		Address: netip.MustParsePrefix("10.77.0.11/24")}
	peers := []Peer{{"sum-0", netip.MustParseAddr("10.77.0.10")}, {"sum-1", netip.MustParseAddr("10.77.0.11")}}
	g, err := newGuestRun("p-1", vm, spec, "primary", peers)
	if err != nil {
		t.Fatal(err)
	}
	return VMDeploy{VM: vm, Run: g}
}

func TestGuestRunWords(t *testing.T) {
	vm := sumVM(t, &model.RunSpec{Master: "serve {vms}", Workers: "send {master} {master_ip} {index}/{vms} from {hostname}@{ip} of {hosts} as {role} in {phase} of {plan}",
		Env: map[string]string{"PORT": "7{index}00", "A": "x"}})
	if want := "send sum-0 10.77.0.10 1/2 from sum-1@10.77.0.11 of sum-0 sum-1 as primary in 1 of p-1"; vm.Run.Command != want {
		t.Errorf("command %q\nwant    %q", vm.Run.Command, want)
	}
	env := map[string]string{}
	var order []string
	for _, kv := range vm.Run.Env {
		env[kv[0]] = kv[1]
		order = append(order, kv[0])
	}
	if env["PORT"] != "7100" || env["PACKER_JOB"] != "sum" || env["PACKER_HOSTS"] != "sum-0 sum-1" || env["PACKER_MASTER_IP"] != "10.77.0.10" {
		t.Errorf("env %v", env)
	}
	// PACKER_* first, then the spec's by name.
	if n := len(order); order[n-2] != "A" || order[n-1] != "PORT" || order[0] != "PACKER_PLAN" {
		t.Errorf("env order %v", order)
	}
}

func TestSeedVolumeContents(t *testing.T) {
	vm := sumVM(t, &model.RunSpec{Command: "echo it's {hostname}"})
	inv := &Inventory{Subnet: "10.77.0.0/24", FirstAddress: 10, Gateway: "10.77.0.1", DNS: []string{"10.77.0.1"}}
	img, err := NoCloudISO(seedFiles(vm, inv))
	if err != nil {
		t.Fatal(err)
	}
	vol, err := readISO(img)
	if err != nil {
		t.Fatal(err)
	}
	if vol.Label != "cidata" {
		t.Errorf("label %q", vol.Label)
	}
	files := map[string]string{}
	for _, f := range vol.Files {
		files[f.Name] = string(f.Data)
	}
	want := map[string][]string{
		"meta-data":      {"instance-id: packer-p-1-p1-sum-1\n", "local-hostname: sum-1\n"},
		"user-data":      {"#cloud-config\n", "hostname: sum-1\n", "  - path: /etc/hosts\n    append: true\n    encoding: b64\n", "runcmd:\n  - [/bin/sh, /var/lib/packer/job.sh]\n"},
		"network-config": {"version: 2\n", `macaddress: "52:54:00:aa:bb:cc"`, "addresses: [10.77.0.11/24]", "via: 10.77.0.1", "addresses: [10.77.0.1]"},
		"packer-net.env": {"PACKER_MAC=52:54:00:aa:bb:cc\nPACKER_ADDRESS=10.77.0.11/24\nPACKER_GATEWAY=10.77.0.1\n"},
		"packer-hosts":   {"10.77.0.10 sum-0\n10.77.0.11 sum-1\n"},
		"packer-job.sh":  {"export PACKER_HOSTNAME='sum-1'\n", `sh -c -- 'echo it'\''s sum-1' >>"$console" 2>&1 </dev/null`, "packer-status: exit $status seconds $secs"},
	}
	if len(files) != len(want) {
		t.Errorf("files %v", vol.Files)
	}
	for name, parts := range want {
		for _, p := range parts {
			if !strings.Contains(files[name], p) {
				t.Errorf("%s lacks %q:\n%s", name, p, files[name])
			}
		}
	}
	// user-data's job.sh and hosts lines are packer-job.sh and
	// packer-hosts, base64-encoded.
	for name, want := range map[string]string{"/var/lib/packer/job.sh": files["packer-job.sh"], "/etc/hosts": files["packer-hosts"]} {
		if got := writtenFile(t, files["user-data"], name); got != want {
			t.Errorf("user-data writes %s as %q, want %q", name, got, want)
		}
	}
}

// writtenFile decodes the base64 content user-data's write_files gives path.
func writtenFile(t *testing.T, userData, path string) string {
	t.Helper()
	_, rest, ok := strings.Cut(userData, "  - path: "+path+"\n")
	if !ok {
		t.Fatalf("user-data writes no %s:\n%s", path, userData)
	}
	_, rest, _ = strings.Cut(rest, "    content: ")
	line, _, _ := strings.Cut(rest, "\n")
	b, err := base64.StdEncoding.DecodeString(line)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return string(b)
}

// FuzzUserData: whatever bytes a command, an env value or a job name
// holds, user-data stays printable ASCII lines (so YAML reads no line break
// or control character from it: \r, U+2028 and ESC would end or break a
// block scalar), and its job.sh decodes to packer-job.sh.
func FuzzUserData(f *testing.F) {
	f.Add("true\rbootcmd: [[touch, /tmp/pwned]]\rx: |\r ", "v\u2028w", "job\x1b[1m")
	f.Add("-x", "'", "a\nb")
	f.Fuzz(func(t *testing.T, cmd, env, job string) {
		if cmd == "" || strings.ContainsRune(cmd, 0) || strings.ContainsRune(env, 0) {
			return // refused by RunSpec.Validate and NewDeployment
		}
		vm := sumVM(t, &model.RunSpec{Command: cmd, Env: map[string]string{"V": env}})
		vm.Meta.Job = job
		files := seedFiles(vm, &Inventory{Subnet: "10.77.0.0/24", FirstAddress: 10})
		ud := string(files[1].Data)
		for i, c := range []byte(ud) {
			if c != '\n' && (c < 0x20 || c > 0x7e) {
				t.Fatalf("user-data byte %d is %#x:\n%q", i, c, ud)
			}
		}
		if got := writtenFile(t, ud, "/var/lib/packer/job.sh"); got != jobScript(vm) {
			t.Fatalf("job.sh in user-data differs from packer-job.sh")
		}
	})
}

// TestJobScriptRuns runs packer-job.sh in a real shell with a command that
// exits 3 and a poweroff that only records it was called: the command's
// output and the status line reach the console, and the VM powers off.
func TestJobScriptRuns(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	vm := sumVM(t, &model.RunSpec{Command: "echo sum of {hosts}; echo \"$PORT\"; exit 3", Env: map[string]string{"PORT": "7000"}})
	script := jobScript(vm)
	// The console and power-off of a machine, redirected into dir.
	console := filepath.Join(dir, "console")
	script = strings.Replace(script, "console=/dev/console\n", "console="+console+"\n", 1)
	script = strings.Replace(script, "for t in /dev/ttyS0 /dev/hvc0", "for t in", 1)
	script = strings.Replace(script, "if [ -d /run/systemd/system ]; then systemctl poweroff; else poweroff -f; fi", "echo powered-off >"+filepath.Join(dir, "off"), 1)
	path := filepath.Join(dir, "job.sh")
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(sh, path).CombinedOutput(); err != nil {
		t.Fatalf("job.sh: %v\n%s", err, out)
	}
	out, err := os.ReadFile(console)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), "sum of sum-0 sum-1\n7000\n") {
		t.Errorf("console:\n%s", out)
	}
	st, ok := ParseStatus(out)
	if !ok || st.Exit != 3 || st.Seconds < 0 || st.Seconds > 60 {
		t.Errorf("status %+v, %v from console:\n%s", st, ok, out)
	}
	if _, err := os.Stat(filepath.Join(dir, "off")); err != nil {
		t.Errorf("the script did not power off: %v", err)
	}
}

// TestMACStepsPastATakenOne: a VM whose name hashes to a MAC another VM
// of the plan has takes the next salt's, and the address of its number.
func TestMACStepsPastATakenOne(t *testing.T) {
	pl := &plan.Plan{ID: "p-1"}
	pl.Cluster.DisksPerHost = 1
	inv := &Inventory{Subnet: "10.77.0.0/24", FirstAddress: 10, Hosts: []InventoryHost{{Name: "h0", URI: "test:///h0.xml", Hypervisor: KVM, Disks: []string{"d0"}}}}
	facts := []HostFacts{{Pools: []Pool{{Name: "d0", Path: "/srv/d0"}}}}
	disk := 0
	place := model.VMPlace{Job: "a", Role: model.Primary, Index: 0, Disk: &disk}
	name := DomainName("p-1", 0, "a", 0)
	_, first := identity(name, KVM, 0)
	uuid1, second := identity(name, KVM, 1)
	extras := 0
	vd, err := newVMDeploy(pl, inv, facts, 0, 0, place, &extras, map[string]bool{first: true}, 3)
	if err != nil {
		t.Fatal(err)
	}
	if vd.MAC != second || vd.UUID != uuid1 || first == second {
		t.Errorf("MAC %s UUID %s, want the second salt's %s %s (the first, %s, is taken)", vd.MAC, vd.UUID, second, uuid1, first)
	}
	if vd.Address.String() != "10.77.0.13/24" {
		t.Errorf("VM number 3 has address %s, want 10.77.0.13/24", vd.Address)
	}
}
