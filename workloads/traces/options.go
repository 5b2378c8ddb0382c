package traces

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/packer-sched/packer/model"
	"github.com/packer-sched/packer/sim"
)

// The trace formats Import reads.
const (
	FormatSWIM  = "swim"
	FormatRumen = "rumen"
	FormatHybS  = "hybs"
)

// ImportOptions are the choices of one import, as `packer workloads import`
// takes them, for every format at once: which option applies to which format
// is decided here, in Validate, and nowhere else. Options are named by their
// flag names ("block-size-mb"), and Validate's errors name the flag to fix.
type ImportOptions struct {
	// Format is FormatSWIM, FormatRumen or FormatHybS.
	Format string
	// Window selects jobs by submit time (not for hybs, whose jobs all
	// arrive at 0) and caps their number (MaxJobs, every format).
	Window Window
	// SkipBad skips malformed records and counts them.
	SkipBad bool
	// KeepFailed (rumen) keeps jobs whose outcome is not SUCCESS.
	KeepFailed bool
	// Topology (rumen) is the path of a topology file; "" for none.
	Topology string
	// Cluster is the simulated cluster: Nodes, Racks, MapSlots, ReduceSlots
	// and Replication, each 0 for the format's default (rumen: the trace's).
	Cluster sim.Cluster
	// BlockMB and ReduceMB (swim) are the MiB per map (one HDFS block) and
	// per reduce; MapMBps, ReduceMBps and TaskSeconds the tasks' rates in
	// MB/s and fixed cost in seconds (see SWIMSettings). Unlike the
	// settings', their zero is not a default: the command line always gives
	// them (64, 1024, 50, 20 and 2 unless told otherwise).
	BlockMB, ReduceMB, MapMBps, ReduceMBps, TaskSeconds float64
	// ServiceLevel is every job's service level, in [0, 1], in the HybS file
	// HybSFile writes.
	ServiceLevel float64
	// Given names the options given explicitly, by flag name. An option that
	// does not apply to Format is an error only when given, since the
	// command line fills every option with its default.
	Given map[string]bool
}

// ErrBadOption is wrapped by every error of ImportOptions.Validate.
var ErrBadOption = errors.New("bad import option")

// optionError is a Validate error: its text is the message alone, naming
// the flag, as the command line prints it.
type optionError struct{ msg string }

func (e *optionError) Error() string { return e.msg }
func (e *optionError) Unwrap() error { return ErrBadOption }

func badOption(format string, args ...any) error {
	return &optionError{fmt.Sprintf(format, args...)}
}

// onlyFor names the options that apply to one format only.
var onlyFor = map[string][]string{
	FormatSWIM:  {"block-size-mb", "reduce-size-mb", "map-mbps", "reduce-mbps", "task-seconds"},
	FormatRumen: {"topology", "keep-failed"},
}

// Validate rejects options that are out of range or that do not apply to
// the format; the error wraps ErrBadOption and names the flag.
func (o *ImportOptions) Validate() error {
	if !o.Given["format"] {
		return badOption("workloads import needs --input-format swim, rumen or hybs")
	}
	for _, f := range []struct {
		flag string
		v    int
	}{{"nodes", o.Cluster.Nodes}, {"racks", o.Cluster.Racks}, {"map-slots", o.Cluster.MapSlots},
		{"reduce-slots", o.Cluster.ReduceSlots}, {"replication", o.Cluster.Replication}, {"max-jobs", o.Window.MaxJobs}} {
		if o.Given[f.flag] && f.v < 1 {
			return badOption("--%s must be at least 1, got %d", f.flag, f.v)
		}
	}
	for format, names := range onlyFor {
		for _, n := range names {
			if o.Given[n] && o.Format != format {
				return badOption("--%s applies to --input-format %s only", n, format)
			}
		}
	}
	if err := o.validateFormat(); err != nil {
		return err
	}
	if lv := o.ServiceLevel; !(lv >= 0 && lv <= 1) {
		return badOption("--service-level must lie in [0, 1], got %v", lv)
	}
	w := o.Window
	if !(w.From >= 0 && w.From <= sim.MaxTime && w.To >= 0 && w.To <= sim.MaxTime) {
		return badOption("--from and --to must be seconds between 0 and %g, got %v and %v", sim.MaxTime, w.From, w.To)
	}
	if o.Given["to"] && w.To <= w.From {
		return badOption("--to %v must be after --from %v", w.To, w.From)
	}
	return o.validateSWIM()
}

// validateFormat rejects the combinations a format cannot take.
func (o *ImportOptions) validateFormat() error {
	switch o.Format {
	case FormatRumen:
		if o.Given["nodes"] && o.Given["topology"] {
			return badOption("--nodes and --topology are two clusters: give one (--nodes moves the real jobs onto a cluster of that size)")
		}
		if o.Given["racks"] && !o.Given["nodes"] {
			return badOption("--racks needs --nodes with --input-format rumen (otherwise the racks are the trace's)")
		}
	case FormatHybS:
		if o.Given["from"] || o.Given["to"] {
			return badOption("--from and --to do not apply to --input-format hybs: its jobs all arrive at 0")
		}
	case FormatSWIM:
	default:
		return badOption("--input-format: unknown trace format %q (want swim, rumen or hybs)", o.Format)
	}
	return nil
}

// validateSWIM checks the throughput model's numbers, for swim only.
func (o *ImportOptions) validateSWIM() error {
	if o.Format != FormatSWIM {
		return nil
	}
	for _, f := range []struct {
		flag string
		mb   float64
	}{{"block-size-mb", o.BlockMB}, {"reduce-size-mb", o.ReduceMB}} {
		if !(f.mb >= 1.0/1024 && f.mb <= 1<<30) {
			return badOption("--%s must lie between 1 KiB and 1 PiB, got %v MiB", f.flag, f.mb)
		}
	}
	for _, f := range []struct {
		flag string
		v    float64
	}{{"map-mbps", o.MapMBps}, {"reduce-mbps", o.ReduceMBps}, {"task-seconds", o.TaskSeconds}} {
		if !(f.v > 0 && f.v <= 1e9) {
			return badOption("--%s must be positive, got %v", f.flag, f.v)
		}
	}
	return nil
}

// Import reads the trace r, named name in errors and metadata, in the
// options' format; for rumen it reads the Topology file too. It validates
// the options first.
func Import(r io.Reader, name string, o *ImportOptions) (*Imported, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	im, err := importFormat(r, name, o)
	if err != nil {
		return nil, err
	}
	if w := sizeWarning(im, o.Format, o.BlockMB); w != "" {
		im.Notes = append(im.Notes, w)
	}
	return im, nil
}

// importFormat is Import's reading, by format.
func importFormat(r io.Reader, name string, o *ImportOptions) (*Imported, error) {
	switch o.Format {
	case FormatSWIM:
		return ReadSWIM(r, name, &SWIMSettings{Window: o.Window, SkipBad: o.SkipBad, Cluster: o.Cluster,
			BlockBytes: int64(o.BlockMB * (1 << 20)), ReduceBytes: int64(o.ReduceMB * (1 << 20)),
			MapMBps: o.MapMBps, ReduceMBps: o.ReduceMBps, TaskSeconds: o.TaskSeconds})
	case FormatRumen:
		set := &RumenSettings{Window: o.Window, SkipBad: o.SkipBad, KeepFailed: o.KeepFailed,
			MapSlots: o.Cluster.MapSlots, ReduceSlots: o.Cluster.ReduceSlots, Replication: o.Cluster.Replication,
			Nodes: o.Cluster.Nodes, Racks: o.Cluster.Racks}
		if o.Topology != "" {
			t, err := ReadTopologyFile(o.Topology)
			if err != nil {
				return nil, err
			}
			set.Topology = t
		}
		return ReadRumen(r, name, set)
	}
	_, im, err := ReadHybS(r, name, &HybSSettings{SkipBad: o.SkipBad, MaxJobs: o.Window.MaxJobs, Cluster: o.Cluster})
	return im, err
}

// ReadTopologyFile reads a Rumen topology file (plain or gzipped); errors
// are *model.InputError naming it.
func ReadTopologyFile(path string) (*Topology, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, &model.InputError{File: path, Err: err}
	}
	defer f.Close()
	return ReadTopology(f, path)
}

// HybSFile renders the import's jobs in the HybS format, each with the
// given service level (see HybSFromSim).
func (im *Imported) HybSFile(level float64) ([]byte, error) {
	jobs, err := HybSFromSim(im.Workload, level)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := WriteHybS(&b, jobs); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// Summary is the import's one-line report: what it holds, from where, on
// which cluster, and what it left out.
func (im *Imported) Summary() string {
	m, cl := im.Meta, im.Workload.Cluster
	note := ""
	if s := m.Skipped(); len(s) > 0 {
		note = "; " + strings.Join(s, ", ")
	}
	return fmt.Sprintf("Imported %d jobs (%d maps, %d reduces) from %s (%s) onto %d nodes in %d racks%s.",
		m.Jobs, m.Maps, m.Reduces, m.Source, m.Format, cl.Nodes, cl.Racks, note)
}
