package sweep

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strconv"
)

// Point is one run of the cross product.
type Point struct {
	// Index is the point's place in the file's order: workloads outermost,
	// then cluster sizes, policies or algorithms, seeds, option sets.
	Index int
	// ID is a hash of the point's coordinates (and its option set's
	// settings): the same point has the same ID in any sweep that lists it.
	ID string
	// Workload is as the file lists it.
	Workload string
	// Size is the nodes (simulate) or hosts (plan); 0 is the default.
	Size int
	// Policy is the policy (simulate) or algorithm (plan).
	Policy  string
	Seed    uint64
	Options Options
}

// Points lists the file's cross product in order.
func (f *File) Points() []Point {
	sizes := f.Nodes
	if f.Run == Plan {
		sizes = f.Hosts
	}
	if len(sizes) == 0 {
		sizes = []int{0}
	}
	policies := f.Policies
	if f.Run == Plan {
		policies = f.Algorithms
	}
	var out []Point
	for _, w := range f.Workloads {
		for _, n := range sizes {
			for _, p := range policies {
				for _, s := range f.Seeds {
					for _, o := range f.Options {
						pt := Point{Index: len(out), Workload: w, Size: n, Policy: p, Seed: s, Options: o}
						pt.ID = pointID(f.Run, pt)
						out = append(out, pt)
					}
				}
			}
		}
	}
	return out
}

// pointID hashes the point's coordinates: twelve hex digits, unlikely to
// collide within MaxPoints (a chance of about 10⁻⁵ in the largest sweep).
func pointID(run string, p Point) string {
	opts, _ := json.Marshal(p.Options)
	h := sha256.New()
	for _, s := range []string{run, p.Workload, strconv.Itoa(p.Size), p.Policy, strconv.FormatUint(p.Seed, 10), string(opts)} {
		h.Write([]byte(strconv.Itoa(len(s)) + ":" + s))
	}
	return hex.EncodeToString(h.Sum(nil))[:12]
}
