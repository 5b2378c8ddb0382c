// Package memlimit finds how much memory this process may use: the least
// of the limits the machine, a container and the process itself set. A
// run that plans its memory by the machine's alone is killed in a 4 GiB pod
// on a 64 GiB host, or crashes in the Go runtime under ulimit -v; these
// limits must be read to be kept.
package memlimit

import (
	"bufio"
	"fmt"
	"io/fs"
	"math"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
)

// Limit is a memory budget and what set it.
type Limit struct {
	// Bytes is the budget; 0 when nothing is known (no limit).
	Bytes int64
	// Source names the limit that bound it, e.g. "3/4 of the cgroup's
	// memory.max (4.0 GB)".
	Source string
}

// Sources are the limits Budget takes the least of, as the system states
// them (Budget scales each to the share a run may plan for); 0 means
// unknown or unlimited.
type Sources struct {
	Machine int64 // physical memory
	Cgroup  int64 // the cgroup's memory.max (v2) or memory.limit_in_bytes (v1)
	AS      int64 // RLIMIT_AS
	GoLimit int64 // GOMEMLIMIT (debug.SetMemoryLimit), math.MaxInt64 when unset
}

// Read reads the limits of this process: sysinfo, its cgroup under
// /sys/fs/cgroup (as /proc/self/cgroup names it), getrlimit and the Go
// runtime's memory limit.
func Read() Sources {
	var s Sources
	var info syscall.Sysinfo_t
	if syscall.Sysinfo(&info) == nil {
		s.Machine = int64(info.Totalram) * int64(info.Unit)
	}
	s.Cgroup = Cgroup(os.DirFS("/"))
	var rl syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_AS, &rl) == nil && rl.Cur != ^uint64(0) && rl.Cur <= math.MaxInt64 {
		s.AS = int64(rl.Cur)
	}
	s.GoLimit = debug.SetMemoryLimit(-1)
	return s
}

// Budget is the least of half the machine's memory (the rest for the
// other processes and the collector's headroom), three quarters of the
// cgroup's limit (the container is this process's, but the collector
// needs headroom), half of RLIMIT_AS (address space, which the Go runtime
// reserves well ahead of what it touches) and GOMEMLIMIT (the heap the
// user asked the collector to keep to), with the source that bound it.
func (s Sources) Budget() Limit {
	var best Limit
	consider := func(bytes int64, source string) {
		if bytes > 0 && (best.Bytes == 0 || bytes < best.Bytes) {
			best = Limit{Bytes: bytes, Source: source}
		}
	}
	consider(s.Machine/2, "half the machine's memory ("+Human(s.Machine)+")")
	consider(s.Cgroup/4*3, "3/4 of the cgroup's memory limit ("+Human(s.Cgroup)+")")
	consider(s.AS/2, "half of the address-space limit RLIMIT_AS, ulimit -v ("+Human(s.AS)+")")
	if s.GoLimit != math.MaxInt64 {
		consider(s.GoLimit, "GOMEMLIMIT ("+Human(s.GoLimit)+")")
	}
	if best.Bytes == 0 {
		best.Source = "no limit known"
	}
	return best
}

// Cgroup is the memory limit of this process's cgroup in bytes, 0 when
// there is none or it cannot be read. root is the file system's root (a
// test gives its own): cgroup v2's memory.max of the group
// /proc/self/cgroup names ("0::/path"), else v1's memory.limit_in_bytes of
// the memory controller's group; each ancestor's limit applies too, so the
// least along the path counts. v1 reports no limit as a huge number, which
// counts as none.
func Cgroup(root fs.FS) int64 {
	f, err := root.Open("proc/self/cgroup")
	if err != nil {
		return 0
	}
	defer f.Close()
	var v2, v1 string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		parts := strings.SplitN(sc.Text(), ":", 3)
		if len(parts) != 3 {
			continue
		}
		switch {
		case parts[0] == "0" && parts[1] == "":
			v2 = parts[2]
		case hasController(parts[1], "memory"):
			v1 = parts[2]
		}
	}
	if v2 != "" {
		if n := leastAlong(root, "sys/fs/cgroup", v2, "memory.max"); n > 0 {
			return n
		}
	}
	if v1 != "" {
		return leastAlong(root, "sys/fs/cgroup/memory", v1, "memory.limit_in_bytes")
	}
	return 0
}

func hasController(list, want string) bool {
	for _, c := range strings.Split(list, ",") {
		if c == want {
			return true
		}
	}
	return false
}

// leastAlong is the least limit in file of the groups from base/path up
// to base, 0 when none is set.
func leastAlong(root fs.FS, base, path, file string) int64 {
	var least int64
	dir := strings.Trim(path, "/")
	for {
		p := base + "/" + file
		if dir != "" {
			p = base + "/" + dir + "/" + file
		}
		if n := readLimit(root, p); n > 0 && (least == 0 || n < least) {
			least = n
		}
		if dir == "" {
			return least
		}
		if i := strings.LastIndexByte(dir, '/'); i >= 0 {
			dir = dir[:i]
		} else {
			dir = ""
		}
	}
}

// readLimit reads a cgroup limit file: a number of bytes, or "max"; 0 for
// none, unreadable, or v1's "no limit" (a value above 2⁶² bytes).
func readLimit(root fs.FS, path string) int64 {
	data, err := fs.ReadFile(root, path)
	if err != nil || len(data) > 64 {
		return 0
	}
	n, err := strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64)
	if err != nil || n <= 0 || n > 1<<62 {
		return 0
	}
	return n
}

// Human prints n bytes in MB or GB, decimal.
func Human(n int64) string {
	if n >= 1e9 {
		return fmt.Sprintf("%.1f GB", float64(n)/1e9)
	}
	return fmt.Sprintf("%.0f MB", float64(n)/1e6)
}
