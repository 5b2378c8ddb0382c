package libvirttest

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/packer-sched/packer/xenlibvirt"
)

// The three machines CI meets, and the two forced choices: the canary is a
// stand-in here (the real one boots a guest in the integration tests), so
// each case also checks whether the canary was asked at all.
func TestChooseAccel(t *testing.T) {
	works := func() (time.Duration, error) { return 1500 * time.Millisecond, nil }
	hangs := func() (time.Duration, error) {
		return 0, fmt.Errorf("canary on qemu:///system (kvm): %w within 20s", xenlibvirt.ErrCanaryTimeout)
	}
	for _, c := range []struct {
		name, forced string
		offered      bool
		canary       func() (time.Duration, error)
		want, why    string
		asked        bool
		err          string
	}{
		{name: "no /dev/kvm", offered: false, canary: works, want: xenlibvirt.QEMU, why: "offers no kvm"},
		{name: "working kvm", offered: true, canary: works, want: xenlibvirt.KVM, why: "powered off in 1.5 s", asked: true},
		{name: "hanging kvm", offered: true, canary: hangs, want: xenlibvirt.QEMU, why: "unusable, falling back to TCG: canary on qemu:///system (kvm): canary guest did not power off", asked: true},
		{name: "forced tcg on working kvm", forced: "tcg", offered: true, canary: works, want: xenlibvirt.QEMU, why: "PACKER_ITEST_ACCEL=tcg"},
		{name: "forced kvm skips the canary", forced: "kvm", offered: true, canary: hangs, want: xenlibvirt.KVM, why: "no canary"},
		{name: "forced kvm without kvm", forced: "kvm", offered: false, canary: works, err: "offers no kvm domain type"},
		{name: "misspelt", forced: "KVM", offered: true, canary: works, err: `PACKER_ITEST_ACCEL="KVM": want kvm or tcg`},
	} {
		t.Run(c.name, func(t *testing.T) {
			asked := false
			hv, why, err := ChooseAccel(c.forced, c.offered, func() (time.Duration, error) { asked = true; return c.canary() })
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("err = %v, want one containing %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if hv != c.want || !strings.Contains(why, c.why) || asked != c.asked {
				t.Errorf("got %s (%q), canary asked %v; want %s (…%q…), asked %v", hv, why, asked, c.want, c.why, c.asked)
			}
			if strings.Contains(why, "\n") {
				t.Errorf("why is not one line: %q", why)
			}
		})
	}
}
