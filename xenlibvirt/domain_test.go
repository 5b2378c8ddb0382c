package xenlibvirt

import (
	"encoding/xml"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/packer-sched/packer/internal/goldenfile"
)

// exampleVM is VM 1 of job "s-srt 1" (a name that needs making safe) in
// phase 2 of plan w2-045a8bb1, a host-role worker on disk 1.
func exampleVM(hypervisor string) VM {
	name := DomainName("w2-045a8bb1", 2, "s-srt 1", 1)
	vm := VM{Meta: Metadata{Plan: "w2-045a8bb1", Phase: 2, Job: "s-srt 1", Role: "host", Index: 1, Name: name},
		Host: 0, HostName: "h0", Disk: "/srv/d1", DiskIndex: 1, Name: name,
		Hostname: guestHostname("s-srt 1", 1), MasterHostname: guestHostname("s-srt 1", 0)}
	vm.UUID, vm.MAC = identity(name, hypervisor, 0)
	return vm
}

func TestDomainXMLGolden(t *testing.T) {
	for _, hv := range []string{KVM, QEMU, Xen} {
		t.Run(hv, func(t *testing.T) {
			vm := exampleVM(hv)
			if vm.Name != "packer-w2-045a8bb1-p3-s-srt-1-1" || vm.Hostname != "s-srt-1-1" || vm.MasterHostname != "s-srt-1-0" {
				t.Errorf("name %s hostname %s master %s", vm.Name, vm.Hostname, vm.MasterHostname)
			}
			// The paper's host: 4 cores / k = 2 → 2 vCPUs; 8192 MiB / 3 VMs → 2730 MiB.
			got, err := DomainXML(vm, DomainSpec{Hypervisor: hv, VCPUs: 2, MemoryMiB: 2730,
				DiskPath: "/srv/d1/" + vm.Name + ".qcow2", Network: "default",
				Kernel: "/var/lib/packer/images/vmlinuz", Initrd: "/var/lib/packer/images/initrd.img", Cmdline: "console=ttyS0"})
			if err != nil {
				t.Fatal(err)
			}
			goldenfile.Check(t, "domain-"+hv+".xml", got)
			// The metadata parses back to what was written.
			var doc struct {
				Meta struct {
					Inner string `xml:",innerxml"`
				} `xml:"metadata"`
			}
			if err := xml.Unmarshal([]byte(got), &doc); err != nil {
				t.Fatal(err)
			}
			m, err := ParseMetadata(doc.Meta.Inner)
			if err != nil {
				t.Fatal(err)
			}
			if m != vm.Meta {
				t.Errorf("metadata read back %+v, wrote %+v", m, vm.Meta)
			}
		})
	}
}

// TestDomainXMLValidates checks every flavour against libvirt's own RelaxNG
// schema: Xen cannot run here, so this and defining it on the test driver
// (TestXenDomainDefinesOnTestDriver) are what vouch for its XML.
func TestDomainXMLValidates(t *testing.T) {
	validate, err := exec.LookPath("virt-xml-validate")
	if err != nil {
		t.Skip("virt-xml-validate not installed (Debian package libvirt-clients; make deps installs it)")
	}
	for _, hv := range []string{KVM, QEMU, Xen} {
		for _, kernel := range []string{"", "/boot/vmlinuz"} {
			vm := exampleVM(hv)
			network := "default"
			if hv == QEMU && kernel != "" {
				network = UserNetwork
			}
			got, err := DomainXML(vm, DomainSpec{Hypervisor: hv, VCPUs: 2, MemoryMiB: 1024, DiskPath: "/srv/d1/x.qcow2", Network: network, Kernel: kernel})
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(t.TempDir(), "domain.xml")
			if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
				t.Fatal(err)
			}
			out, err := exec.Command(validate, path, "domain").CombinedOutput()
			if err != nil || !strings.Contains(string(out), "validates") {
				t.Errorf("%s (kernel %q): virt-xml-validate: %v\n%s\n%s", hv, kernel, err, out, got)
			}
		}
	}
}

func TestDomainXMLRejects(t *testing.T) {
	vm := exampleVM(KVM)
	for _, s := range []DomainSpec{
		{Hypervisor: "vmware", VCPUs: 1, MemoryMiB: 1},
		{Hypervisor: KVM, VCPUs: 0, MemoryMiB: 1},
		{Hypervisor: KVM, VCPUs: 1, MemoryMiB: 0},
		{Hypervisor: Xen, VCPUs: 1, MemoryMiB: 1, Network: UserNetwork},
	} {
		if _, err := DomainXML(vm, s); err == nil || !strings.Contains(err.Error(), vm.Name) {
			t.Errorf("%+v: %v, want an error naming the domain", s, err)
		}
	}
}

func TestIdentity(t *testing.T) {
	u1, m1 := identity("packer-a-p0-j-0", KVM, 0)
	u2, m2 := identity("packer-a-p0-j-0", KVM, 0)
	if u1 != u2 || m1 != m2 {
		t.Error("identity is not a function of the name")
	}
	if !strings.HasPrefix(m1, "52:54:00:") || len(m1) != 17 {
		t.Errorf("kvm MAC %s", m1)
	}
	if _, mx := identity("packer-a-p0-j-0", Xen, 0); !strings.HasPrefix(mx, "00:16:3e:") || mx[9:] != m1[9:] {
		t.Errorf("xen MAC %s, kvm %s: same suffix, Xen's prefix expected", mx, m1)
	}
	// UUID version 5, RFC 4122 variant: 8-4-4-4-12 hex digits.
	if len(u1) != 36 || u1[14] != '5' || !strings.ContainsAny(u1[19:20], "89ab") {
		t.Errorf("uuid %s", u1)
	}
	if u3, m3 := identity("packer-a-p0-j-0", KVM, 1); u3 == u1 || m3 == m1 {
		t.Error("a new salt gives the same identity")
	}
}

func TestNames(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"s-srt-1", "s-srt-1"}, {"Big Sort!", "big-sort"}, {"--x__y--", "x-y"}, {"ÄÖ", ""}, {"a.b.c", "a-b-c"},
	} {
		if got := nameSafe(tc.in); got != tc.want {
			t.Errorf("nameSafe(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	// A job name past 40 characters keeps 31 and adds "-" and 8 hex digits
	// of its hash: 31 + 1 + 8 + len("-12") = 43 characters.
	long := strings.Repeat("j", 70)
	if h := guestHostname(long, 12); len(h) != 43 || !strings.HasPrefix(h, strings.Repeat("j", 31)+"-") || !strings.HasSuffix(h, "-12") {
		t.Errorf("hostname %q (%d chars), want 43: 31 j's, a hash, -12", h, len(h))
	}
	if guestHostname(long, 1) == guestHostname(strings.Repeat("j", 71), 1) {
		t.Error("two long job names sharing 31 characters make one hostname")
	}
	// Phase index 3 is phase 4 for people, and in the name.
	if got := DomainName("w1-91b8c627", 3, "s-inv-1", 0); got != "packer-w1-91b8c627-p4-s-inv-1-0" {
		t.Errorf("DomainName = %s", got)
	}
}

func TestOwns(t *testing.T) {
	m := &Metadata{Plan: "p1", Name: "packer-p1-p0-j-0"}
	for _, tc := range []struct {
		plan, name string
		m          *Metadata
		want       bool
	}{
		{"p1", "packer-p1-p0-j-0", m, true},
		{"p1", "packer-p1-p0-j-0", nil, false},         // no metadata: someone else's
		{"p2", "packer-p1-p0-j-0", m, false},           // another plan's
		{"p1", "packer-p1-p0-j-1", m, false},           // metadata copied onto another domain
		{"p1", "packer-p1-p0-j-0", &Metadata{}, false}, // empty element
	} {
		if got := Owns(tc.plan, tc.name, tc.m); got != tc.want {
			t.Errorf("Owns(%s, %s, %+v) = %v", tc.plan, tc.name, tc.m, got)
		}
	}
}

// FuzzParseMetadata: whatever a job or plan is called, the metadata packer
// writes into the domain XML parses back to the same values, so ownership
// never hinges on escaping; and ParseMetadata never panics on raw input.
func FuzzParseMetadata(f *testing.F) {
	f.Add("w2-045a8bb1", "s-srt-1", "host", 3, "<vm><plan>p</plan></vm>")
	f.Add("a&b", "<job>\"'", "extra", 0, "<vm><plan>")
	f.Add("", "x]]>y", "primary", -1, "")
	f.Fuzz(func(t *testing.T, plan, job, role string, index int, raw string) {
		_, _ = ParseMetadata(raw)
		for _, s := range []string{plan, job, role} {
			if !utf8.ValidString(s) || strings.ContainsFunc(s, func(r rune) bool {
				return r < 0x20 && r != '\t' && r != '\n' || r == '\r' || r == 0xFFFE || r == 0xFFFF || r == utf8.RuneError
			}) {
				return // not representable in XML 1.0 at all
			}
		}
		name := DomainName(plan, 1, job, index)
		vm := VM{Meta: Metadata{Plan: plan, Phase: 1, Job: job, Role: role, Index: index, Master: index == 0, Name: name}, Name: name}
		vm.UUID, vm.MAC = identity(name, KVM, 0)
		got, err := DomainXML(vm, DomainSpec{Hypervisor: KVM, VCPUs: 1, MemoryMiB: 1, DiskPath: "/d", Network: "default"})
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Meta struct {
				Inner string `xml:",innerxml"`
			} `xml:"metadata"`
		}
		if err := xml.Unmarshal([]byte(got), &doc); err != nil {
			t.Fatalf("domain XML does not parse: %v\n%s", err, got)
		}
		m, err := ParseMetadata(doc.Meta.Inner)
		if err != nil {
			t.Fatal(err)
		}
		if m != vm.Meta {
			t.Fatalf("read back %+v, wrote %+v", m, vm.Meta)
		}
	})
}
