//go:build integration

package libvirttest

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/packer-sched/packer/xenlibvirt"
)

// canaryConn connects as the integration tests do and returns the
// appliance's directory.
func canaryConn(t *testing.T) (*xenlibvirt.Conn, string) {
	t.Helper()
	dir, uri := ApplianceDir(), QEMUURI()
	conn, err := xenlibvirt.Open(uri)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	clean(t, conn.Libvirt(), dir)
	return conn, dir
}

// assertNoCanary fails if a canary domain outlived BootCanary.
func assertNoCanary(t *testing.T, conn *xenlibvirt.Conn) {
	t.Helper()
	doms, err := conn.Libvirt().ListAllDomains(0)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range doms {
		if n, _ := d.GetName(); len(n) > 14 && n[:14] == "packer-canary-" {
			t.Errorf("canary domain %s left behind", n)
		}
		d.Free()
	}
}

// TestIntegrationCanaryOnTCG: the appliance told to run `true` powers off,
// and BootCanary sees it, on TCG, which every machine has.
func TestIntegrationCanaryOnTCG(t *testing.T) {
	conn, dir := canaryConn(t)
	took, err := conn.BootCanary(context.Background(), xenlibvirt.Canary{Hypervisor: xenlibvirt.QEMU,
		Kernel: filepath.Join(dir, "vmlinuz"), Initrd: filepath.Join(dir, "initrd.img"), Timeout: 3 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("TCG canary powered off in %v", took)
	assertNoCanary(t, conn)
}

// TestIntegrationCanaryThatHangs is the hanging accelerator made on purpose:
// a guest that sleeps 600 s instead of powering off must be reported as a
// timeout long before it would wake, and destroyed.
func TestIntegrationCanaryThatHangs(t *testing.T) {
	conn, dir := canaryConn(t)
	const timeout, sleep = 3 * time.Second, 600 * time.Second
	start := time.Now()
	_, err := conn.BootCanary(context.Background(), xenlibvirt.Canary{Hypervisor: xenlibvirt.QEMU,
		Kernel: filepath.Join(dir, "vmlinuz"), Initrd: filepath.Join(dir, "initrd.img"),
		Cmdline: fmt.Sprintf("console=ttyS0 quiet panic=-1 packer.run=sleep,%d", int(sleep.Seconds())), Timeout: timeout})
	if !errors.Is(err, xenlibvirt.ErrCanaryTimeout) || !strings.Contains(err.Error(), "within "+timeout.String()) {
		t.Fatalf("err = %v, want ErrCanaryTimeout within %v", err, timeout)
	}
	// The timeout runs from the domain's start, so the wait also holds
	// QEMU's start and destroy: a few seconds on an idle machine, 23 s
	// measured under TCG on a loaded 2-core one. A bound of the timeout plus
	// two minutes leaves room for that and still proves the canary gave up
	// rather than waiting for the guest to wake.
	took := time.Since(start)
	if took > timeout+2*time.Minute {
		t.Errorf("a %v canary took %v to give up (its guest sleeps %v)", timeout, took, sleep)
	}
	t.Logf("a %v canary gave up after %v", timeout, took)
	assertNoCanary(t, conn)
}

// TestIntegrationAccelChoice runs the harness's own choice on this machine
// (whatever its /dev/kvm does) and checks that the choice boots: the
// canary of the chosen accelerator powers off.
func TestIntegrationAccelChoice(t *testing.T) {
	conn, dir := canaryConn(t)
	hv := Accel(t, conn, dir)
	if _, err := conn.BootCanary(context.Background(), xenlibvirt.Canary{Hypervisor: hv,
		Kernel: filepath.Join(dir, "vmlinuz"), Initrd: filepath.Join(dir, "initrd.img"), Timeout: 3 * time.Minute}); err != nil {
		t.Fatalf("the chosen accelerator %s does not boot the appliance: %v", hv, err)
	}
	assertNoCanary(t, conn)
}
