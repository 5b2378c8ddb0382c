package xenlibvirt

import (
	"encoding/base64"
	"fmt"
	"net/netip"
	"sort"
	"strconv"
	"strings"

	"github.com/packer-sched/packer/model"
)

// Peer is one VM of a job as the job's other VMs know it.
type Peer struct {
	Hostname string     `json:"hostname"`
	Address  netip.Addr `json:"address"`
}

// GuestRun is what one VM of a job with a run spec runs: the job's command
// for this VM with its template words replaced, the environment, and the
// job's VMs for /etc/hosts.
type GuestRun struct {
	Command string `json:"command"`
	// Env holds PACKER_* first, then the run spec's variables by name.
	Env   [][2]string `json:"env"`
	Peers []Peer      `json:"peers,omitempty"`
}

// runWords are the values of model.RunWords for one VM.
func runWords(plan string, vm VM, vms int, role string, peers []Peer) map[string]string {
	w := map[string]string{"job": jobPart(vm.Meta.Job), "index": strconv.Itoa(vm.Meta.Index), "vms": strconv.Itoa(vms),
		"hostname": vm.Hostname, "master": vm.MasterHostname, "role": role,
		"phase": strconv.Itoa(PhaseNumber(vm.Meta.Phase)), "plan": plan}
	var hosts []string
	for _, p := range peers {
		hosts = append(hosts, p.Hostname)
		if p.Hostname == vm.MasterHostname && p.Address.IsValid() {
			w["master_ip"] = p.Address.String()
		}
	}
	w["hosts"] = strings.Join(hosts, " ")
	if vm.Address.IsValid() {
		w["ip"] = vm.Address.Addr().String()
	}
	return w
}

// newGuestRun makes a job's run spec concrete for one of its VMs; peers are
// all the job's VMs, master first.
func newGuestRun(plan string, vm VM, spec *model.RunSpec, role string, peers []Peer) (*GuestRun, error) {
	words := runWords(plan, vm, len(peers), role, peers)
	if spec.CommandFor(vm.Meta.Index) == "" {
		return nil, fmt.Errorf("job %q: run: VM %d of %d has no command: give command, or workers for VMs 1..%d", vm.Meta.Job, vm.Meta.Index, len(peers), len(peers)-1)
	}
	cmd, err := model.ExpandRunWords(spec.CommandFor(vm.Meta.Index), words)
	if err != nil {
		return nil, fmt.Errorf("job %q: run: %w", vm.Meta.Job, err)
	}
	g := &GuestRun{Command: cmd, Peers: peers}
	for _, k := range []string{"plan", "phase", "job", "index", "vms", "role", "hostname", "master", "hosts", "ip", "master_ip"} {
		g.Env = append(g.Env, [2]string{"PACKER_" + strings.ToUpper(k), words[k]})
	}
	// PACKER_JOB is the job's own name; {job} is the name host names carry.
	for i := range g.Env {
		if g.Env[i][0] == "PACKER_JOB" {
			g.Env[i][1] = vm.Meta.Job
		}
	}
	names := make([]string, 0, len(spec.Env))
	for k := range spec.Env {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		v, err := model.ExpandRunWords(spec.Env[k], words)
		if err != nil {
			return nil, fmt.Errorf("job %q: run.env.%s: %w", vm.Meta.Job, k, err)
		}
		g.Env = append(g.Env, [2]string{k, v})
	}
	return g, nil
}

// shellQuote quotes s for a POSIX shell: single quotes, each ' as '\”.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// StatusPrefix begins the line a guest's job script prints on the console
// when the job's command has ended: "packer-status: exit N seconds S".
const StatusPrefix = "packer-status:"

// jobScript is packer-job.sh: it exports the environment (after what the
// image's /etc/profile.d sets), runs the command
// with its output on the console, prints the status line (ParseStatus) and
// powers the VM off, whatever the command's exit status: the line, not the
// power-off, says how the job ended. The console is the first serial port
// (ttyS0 on QEMU/KVM, hvc0 on Xen) that can be opened, which is what
// libvirt's console stream reads; /dev/console otherwise.
func jobScript(vm VMDeploy) string {
	var b strings.Builder
	// The comment names the job as host names do: a job's own name may
	// hold any character (PACKER_JOB, quoted, carries it).
	fmt.Fprintf(&b, "#!/bin/sh\n# packer: job %s, VM %d (%s), phase %d of plan %s\n",
		jobPart(vm.Meta.Job), vm.Meta.Index, vm.Hostname, PhaseNumber(vm.Meta.Phase), vm.Meta.Plan)
	// What a login shell would have (JAVA_HOME, HADOOP_HOME from the
	// image's /etc/profile.d), which cloud-init's runcmd does not give;
	// the run spec's environment, after it, wins.
	b.WriteString("for f in /etc/profile.d/*.sh; do [ -r \"$f\" ] && . \"$f\"; done\n")
	for _, kv := range vm.Run.Env {
		fmt.Fprintf(&b, "export %s=%s\n", kv[0], shellQuote(kv[1]))
	}
	b.WriteString(`console=/dev/console
for t in /dev/ttyS0 /dev/hvc0; do
  if [ -c "$t" ] && (: >"$t") 2>/dev/null; then console=$t; break; fi
done
start=$(cut -d' ' -f1 /proc/uptime)
echo "packer-job: $PACKER_HOSTNAME: running job $PACKER_JOB" >>"$console"
`)
	// "--": a command starting with '-' is not an option of sh's.
	fmt.Fprintf(&b, "sh -c -- %s >>\"$console\" 2>&1 </dev/null\n", shellQuote(vm.Run.Command))
	b.WriteString(`status=$?
end=$(cut -d' ' -f1 /proc/uptime)
secs=$(awk -v s="$start" -v e="$end" 'BEGIN { printf "%.2f", e - s }')
sync
echo "` + StatusPrefix + ` exit $status seconds $secs" >>"$console"
if [ -d /run/systemd/system ]; then systemctl poweroff; else poweroff -f; fi
`)
	return b.String()
}

// hostsLines are the job's VMs as /etc/hosts lines, "" without addresses.
func hostsLines(peers []Peer) string {
	var b strings.Builder
	for _, p := range peers {
		if p.Address.IsValid() {
			fmt.Fprintf(&b, "%s %s\n", p.Address, p.Hostname)
		}
	}
	return b.String()
}

// seedFiles are the files of a VM's NoCloud seed volume: cloud-init's
// meta-data, user-data and (with an address) network-config, and, for
// appliances without cloud-init, the same job as packer-job.sh, the hosts
// lines as packer-hosts and the address as packer-net.env.
func seedFiles(vm VMDeploy, inv *Inventory) []NoCloudFile {
	script, hosts := jobScript(vm), hostsLines(vm.Run.Peers)
	meta := fmt.Sprintf("instance-id: %s\nlocal-hostname: %s\n", vm.Name, vm.Hostname)
	// The script and hosts lines go base64-encoded: a command may hold
	// any byte, and YAML takes \r, U+2028 and control characters as line
	// breaks or refuses them, which in a block scalar would end it (and
	// let the rest be read as keys of its own). Everything else written
	// here is a host name, an address or a MAC.
	var u strings.Builder
	fmt.Fprintf(&u, "#cloud-config\nhostname: %s\nfqdn: %s\nmanage_etc_hosts: false\n", vm.Hostname, vm.Hostname)
	u.WriteString("write_files:\n")
	if hosts != "" {
		fmt.Fprintf(&u, "  - path: /etc/hosts\n    append: true\n    encoding: b64\n    content: %s\n", base64.StdEncoding.EncodeToString([]byte(hosts)))
	}
	fmt.Fprintf(&u, "  - path: /var/lib/packer/job.sh\n    permissions: '0755'\n    encoding: b64\n    content: %s\n", base64.StdEncoding.EncodeToString([]byte(script)))
	u.WriteString("runcmd:\n  - [/bin/sh, /var/lib/packer/job.sh]\n")
	files := []NoCloudFile{{Name: "meta-data", Data: []byte(meta)}, {Name: "user-data", Data: []byte(u.String())}}
	if vm.Address.IsValid() {
		files = append(files, NoCloudFile{Name: "network-config", Data: []byte(networkConfig(vm, inv))})
		env := fmt.Sprintf("PACKER_MAC=%s\nPACKER_ADDRESS=%s\n", vm.MAC, vm.Address)
		if inv.Gateway != "" {
			env += "PACKER_GATEWAY=" + inv.Gateway + "\n"
		}
		files = append(files, NoCloudFile{Name: "packer-net.env", Data: []byte(env)})
	}
	files = append(files, NoCloudFile{Name: "packer-job.sh", Data: []byte(script)})
	if hosts != "" {
		files = append(files, NoCloudFile{Name: "packer-hosts", Data: []byte(hosts)})
	}
	return files
}

// networkConfig is cloud-init's network configuration, version 2: the NIC
// with the VM's MAC gets its static address, the gateway and DNS servers.
func networkConfig(vm VMDeploy, inv *Inventory) string {
	var b strings.Builder
	fmt.Fprintf(&b, "version: 2\nethernets:\n  packer0:\n    match:\n      macaddress: %q\n    addresses: [%s]\n", vm.MAC, vm.Address)
	if inv.Gateway != "" {
		// "to: default" is cloud-init 25.3's; Debian 12 has 22.4.
		fmt.Fprintf(&b, "    routes:\n      - to: 0.0.0.0/0\n        via: %s\n", inv.Gateway)
	}
	if len(inv.DNS) > 0 {
		fmt.Fprintf(&b, "    nameservers:\n      addresses: [%s]\n", strings.Join(inv.DNS, ", "))
	}
	return b.String()
}
