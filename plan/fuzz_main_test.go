package plan_test

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/packer-sched/packer/model"
	"github.com/packer-sched/packer/plan"

	"github.com/packer-sched/packer/internal/fuzzmin"
)

// TestMain bounds how long `go test -fuzz` minimizes an input (fuzzmin).
func TestMain(m *testing.M) { fuzzmin.Main(m) }

// implausible are edits of a plan document that put a value past model's
// plausibility bounds: the first number of key becomes to, and the plan
// must be refused naming field. They seed the plan fuzzers, whose mutations
// of them probe the bounds' edges.
var implausible = []struct{ key, to, field string }{
	{"b", "-1e308", "model.b"},
	{"a", "1e308", "model.a"},
	{"disks_per_host", "100000", "disks_per_host"},
	{"cores_per_host", "100000", "cores_per_host"},
	{"memory_mib_per_host", "1000000000000", "memory_mib_per_host"},
	{"overcommit_penalty", "1e300", "overcommit_penalty"},
	{"hosts", "9223372036854775807", "hosts"},
}

// makeImplausible is doc with the first number of key replaced by to.
func makeImplausible(t testing.TB, doc []byte, key, to string) []byte {
	re := regexp.MustCompile(`"` + regexp.QuoteMeta(key) + `":\s*-?[0-9][0-9.eE+-]*`)
	loc := re.FindIndex(doc)
	if loc == nil {
		t.Fatalf("seed plan has no %q number to make implausible", key)
	}
	return slices.Concat(doc[:loc[0]], []byte(`"`+key+`":`+to), doc[loc[1]:])
}

// implausibleSeeds adds doc edited by each of implausible to f's corpus.
func implausibleSeeds(f *testing.F, doc []byte) {
	for _, e := range implausible {
		f.Add(makeImplausible(f, doc, e.key, e.to))
	}
}

// TestParseRefusesImplausible: each implausible edit of a valid plan is
// refused in one line naming the file and the field.
func TestParseRefusesImplausible(t *testing.T) {
	doc := threeJobPlan(t)
	if _, err := plan.Parse(doc, "p.json"); err != nil {
		t.Fatalf("the plan itself: %v", err)
	}
	for _, e := range implausible {
		_, err := plan.Parse(makeImplausible(t, doc, e.key, e.to), "p.json")
		if err == nil || !strings.HasPrefix(err.Error(), "p.json: invalid plan: ") || !strings.Contains(err.Error(), e.field) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s %s: %v; want one line naming p.json and %s", e.key, e.to, err, e.field)
		}
	}
}

// checkPlausible is the cross-check of an accepted plan against model's
// bounds themselves, not through the code that enforces them.
func checkPlausible(t *testing.T, pl *plan.Plan) {
	c := pl.Cluster.Cluster
	if c.DisksPerHost > model.MaxDisksPerHost || c.CoresPerHost > model.MaxCoresPerHost ||
		c.MemoryMiBPerHost > model.MaxMemoryMiBPerHost || c.Alpha > model.MaxAlpha || c.Hosts*c.DisksPerHost > model.MaxPrimaryVMs {
		t.Fatalf("accepted an implausible cluster: %+v", c)
	}
	for _, j := range pl.Jobs {
		if f1 := j.Model.Seconds(1); !(f1 >= model.MinJobSeconds && f1 <= model.MaxJobSeconds) {
			t.Fatalf("accepted job %q taking %v s alone on one VM", j.Name, f1)
		}
	}
}
