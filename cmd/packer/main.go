// Command packer plans, checks and applies the placement of batch job sets onto
// a cluster of virtual machines. Run `packer help` for its commands.
package main

import (
	"fmt"
	"os"
	"os/signal"
	"slices"
	"syscall"

	"github.com/packer-sched/packer/internal/safefile"
)

func main() {
	stop := removeTempsOnSignal(os.Args)
	code := run(os.Args, os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// ownSignals are the commands that catch SIGINT and SIGTERM themselves, to
// tear down the VMs they started and say what they measured; the others are
// stopped by removeTempsOnSignal.
var ownSignals = []string{"apply", "profile"}

// removeTempsOnSignal makes SIGINT and SIGTERM remove the outputs being
// written (safefile's temporary files, such as simulate's --trace, which
// grows for as long as the simulation runs) and exit with 128 + the
// signal's number, 130 for Ctrl-C, as a shell reports a process the signal
// killed. Commands in ownSignals are left their own handling. It returns the
// function that stops the handling.
func removeTempsOnSignal(args []string) (stop func()) {
	if i := slices.IndexFunc(args[1:], func(a string) bool { return len(a) == 0 || a[0] != '-' }); i >= 0 && slices.Contains(ownSignals, args[1+i]) {
		return func() {}
	}
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		sig, ok := <-sigs
		if !ok {
			return
		}
		safefile.RemoveTemps()
		name := map[os.Signal]string{os.Interrupt: "SIGINT", syscall.SIGTERM: "SIGTERM"}[sig]
		fmt.Fprintf(os.Stderr, "packer: stopped by %s; unfinished outputs removed\n", name)
		os.Exit(128 + int(sig.(syscall.Signal)))
	}()
	return func() {
		signal.Stop(sigs)
		close(sigs)
	}
}
