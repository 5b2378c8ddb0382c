// Command packer plans, checks and applies the placement of batch job sets onto
// a cluster of virtual machines. Run `packer help` for its commands.
package main

import "os"

func main() {
	os.Exit(run(os.Args, os.Stdin, os.Stdout, os.Stderr))
}
