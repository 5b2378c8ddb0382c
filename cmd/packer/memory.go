package main

import (
	"math"

	"github.com/urfave/cli/v2"

	"github.com/packer-sched/packer/internal/memlimit"
)

// memoryBudget is --max-memory's default: the least of the limits the
// machine, a container and the process set (memlimit.Sources.Budget), read
// once when the command starts.
var memoryBudget = memlimit.Read().Budget()

// maxMemoryBytes is --max-memory in bytes. It must fit an int64: 2⁴³ MiB
// shifted left 20 bits wraps to a negative number, and 2⁴⁴ to 0, which
// means no limit.
func maxMemoryBytes(c *cli.Context) (int64, error) {
	mib := c.Int64("max-memory")
	if mib < 0 || mib > math.MaxInt64>>20 {
		return 0, badUsage("--max-memory: %d MiB, want 0 (no limit) to %d MiB (8 EiB)", mib, int64(math.MaxInt64>>20))
	}
	return mib << 20, nil
}
