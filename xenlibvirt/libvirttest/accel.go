package libvirttest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/packer-sched/packer/xenlibvirt"
)

// AccelEnv names the environment variable that forces the integration
// tests' accelerator: "kvm" or "tcg". Unset, ChooseAccel decides.
const AccelEnv = "PACKER_ITEST_ACCEL"

// CanaryTimeout bounds the KVM canary. A working KVM boots the appliance and
// powers it off in 4–6 s (4 of them the appliance's linger); a /dev/kvm that
// exists but hangs guests (nested virtualisation without support) never
// does, so waiting longer only delays the fallback to TCG.
const CanaryTimeout = 20 * time.Second

// ChooseAccel picks the domain type for the integration tests and says why in
// one line. forced is the value of AccelEnv; kvmOffered says whether libvirt
// lists the kvm domain type; canary boots a KVM guest and reports how long it
// took to power off (called only when KVM is offered and not forced).
//
//   - forced "tcg": qemu (TCG), whatever the machine has;
//   - forced "kvm": kvm, without a canary, or an error if libvirt offers none;
//   - not forced, no kvm domain type (no /dev/kvm): qemu;
//   - not forced, kvm offered: kvm if the canary powered off, else qemu,
//     the line naming the canary's failure.
func ChooseAccel(forced string, kvmOffered bool, canary func() (time.Duration, error)) (hypervisor, why string, err error) {
	switch forced {
	case "tcg":
		return xenlibvirt.QEMU, AccelEnv + "=tcg", nil
	case "kvm":
		if !kvmOffered {
			return "", "", fmt.Errorf("%s=kvm, but libvirt offers no kvm domain type (is /dev/kvm there and usable?)", AccelEnv)
		}
		return xenlibvirt.KVM, AccelEnv + "=kvm, no canary", nil
	case "":
	default:
		return "", "", fmt.Errorf("%s=%q: want kvm or tcg, or unset to choose by a canary", AccelEnv, forced)
	}
	if !kvmOffered {
		return xenlibvirt.QEMU, "libvirt offers no kvm domain type", nil
	}
	took, err := canary()
	if err != nil {
		return xenlibvirt.QEMU, fmt.Sprintf("KVM is offered but unusable, falling back to TCG: %v", err), nil
	}
	return xenlibvirt.KVM, fmt.Sprintf("a KVM canary guest booted and powered off in %.1f s", took.Seconds()), nil
}

// accelChoice is decided once per test binary: every test of a run uses
// one accelerator, and a hanging KVM costs the canary's timeout once.
var accelChoice struct {
	sync.Once
	hv, why string
	err     error
}

// accel returns ChooseAccel's answer for the appliance in dir on conn.
func accel(conn *xenlibvirt.Conn, dir string, virtTypes []string) (string, string, error) {
	accelChoice.Do(func() {
		canary := func() (time.Duration, error) {
			return conn.BootCanary(context.Background(), xenlibvirt.Canary{Hypervisor: xenlibvirt.KVM,
				Kernel: filepath.Join(dir, "vmlinuz"), Initrd: filepath.Join(dir, "initrd.img"), Timeout: CanaryTimeout})
		}
		accelChoice.hv, accelChoice.why, accelChoice.err = ChooseAccel(os.Getenv(AccelEnv), slices.Contains(virtTypes, xenlibvirt.KVM), canary)
	})
	return accelChoice.hv, accelChoice.why, accelChoice.err
}
