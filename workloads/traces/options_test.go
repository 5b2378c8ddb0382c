package traces

import (
	"errors"
	"strings"
	"testing"
)

// swimOptions are the command line's defaults for a SWIM import.
func swimOptions() *ImportOptions {
	return &ImportOptions{Format: FormatSWIM, BlockMB: 64, ReduceMB: 1024, MapMBps: 50, ReduceMBps: 20, TaskSeconds: 2,
		ServiceLevel: 1, Given: map[string]bool{"format": true}}
}

func TestImportOptionsValidate(t *testing.T) {
	for _, c := range []struct {
		name string
		edit func(o *ImportOptions)
		want string // "" for valid
	}{
		{"defaults", func(o *ImportOptions) {}, ""},
		{"no format", func(o *ImportOptions) { o.Given = nil }, "workloads import needs --input-format swim, rumen or hybs"},
		{"unknown format", func(o *ImportOptions) { o.Format = "csv" }, `--input-format: unknown trace format "csv" (want swim, rumen or hybs)`},
		// A zero that was given is an error; a zero left alone is the default.
		{"nodes 0 given", func(o *ImportOptions) { o.Given["nodes"] = true }, "--nodes must be at least 1, got 0"},
		{"max-jobs negative", func(o *ImportOptions) { o.Window.MaxJobs = -1; o.Given["max-jobs"] = true }, "--max-jobs must be at least 1, got -1"},
		{"topology for swim", func(o *ImportOptions) { o.Given["topology"] = true }, "--topology applies to --input-format rumen only"},
		{"block size for rumen", func(o *ImportOptions) { o.Format = FormatRumen; o.Given["block-size-mb"] = true }, "--block-size-mb applies to --input-format swim only"},
		// Defaults that do not apply are harmless when not given.
		{"rumen with swim defaults", func(o *ImportOptions) { o.Format = FormatRumen }, ""},
		{"rumen nodes and topology", func(o *ImportOptions) {
			o.Format, o.Cluster.Nodes = FormatRumen, 9
			o.Given["nodes"], o.Given["topology"] = true, true
		}, "--nodes and --topology are two clusters: give one (--nodes moves the real jobs onto a cluster of that size)"},
		{"rumen racks alone", func(o *ImportOptions) { o.Format, o.Cluster.Racks = FormatRumen, 2; o.Given["racks"] = true },
			"--racks needs --nodes with --input-format rumen (otherwise the racks are the trace's)"},
		{"hybs window", func(o *ImportOptions) { o.Format = FormatHybS; o.Given["from"] = true },
			"--from and --to do not apply to --input-format hybs: its jobs all arrive at 0"},
		{"service level", func(o *ImportOptions) { o.ServiceLevel = 1.5 }, "--service-level must lie in [0, 1], got 1.5"},
		{"negative from", func(o *ImportOptions) { o.Window.From = -1 }, "--from and --to must be seconds between 0 and"},
		// --to 0 given explicitly is not after --from 0.
		{"to not after from", func(o *ImportOptions) { o.Given["to"] = true }, "--to 0 must be after --from 0"},
		{"tiny block", func(o *ImportOptions) { o.BlockMB = 1.0 / 2048 }, "--block-size-mb must lie between 1 KiB and 1 PiB, got 0.00048828125 MiB"},
		{"zero rate", func(o *ImportOptions) { o.ReduceMBps = 0 }, "--reduce-mbps must be positive, got 0"},
		// The swim numbers are not checked for another format.
		{"hybs ignores swim numbers", func(o *ImportOptions) { o.Format, o.MapMBps = FormatHybS, 0 }, ""},
	} {
		o := swimOptions()
		if o.Given == nil {
			o.Given = map[string]bool{}
		}
		c.edit(o)
		err := o.Validate()
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.want != "" && (err == nil || !strings.HasPrefix(err.Error(), c.want) || !errors.Is(err, ErrBadOption)):
			t.Errorf("%s: error %v, want %q wrapping ErrBadOption", c.name, err, c.want)
		}
	}
}

func TestImportFormats(t *testing.T) {
	// One job of 3 tasks of 10 s in each format that can say it.
	swim := swimOptions()
	im, err := Import(strings.NewReader("j\t0\t0\t0\t0\t0\n"), "a.tsv", swim)
	if err != nil || im.Meta.Format != FormatSWIM || im.Meta.Jobs != 1 {
		t.Fatalf("swim: %v %+v", err, im)
	}
	hybs := swimOptions()
	hybs.Format, hybs.Cluster.Nodes, hybs.Given["nodes"] = FormatHybS, 4, true
	im, err = Import(strings.NewReader("j 3 10 1 1\n"), "b.txt", hybs)
	if err != nil || im.Meta.Format != FormatHybS || im.Meta.Maps != 3 || im.Workload.Cluster.Nodes != 4 {
		t.Fatalf("hybs: %v %+v", err, im)
	}
	// 3 tasks of 10 s: the HybS file gives them back, with the service level.
	b, err := im.HybSFile(0.5)
	if err != nil || string(b) != "j 3 10 1 0.5\n" {
		t.Errorf("HybS file %q (%v)", b, err)
	}
	if got, want := im.Summary(), "Imported 1 jobs (3 maps, 0 reduces) from b.txt (hybs) onto 4 nodes in 1 racks."; got != want {
		t.Errorf("summary %q, want %q", got, want)
	}
	im.Meta.SkippedBad, im.Meta.OutsideWindow = 2, 1
	if got, want := im.Summary(), "Imported 1 jobs (3 maps, 0 reduces) from b.txt (hybs) onto 4 nodes in 1 racks; 2 malformed records skipped, 1 jobs outside the window."; got != want {
		t.Errorf("summary %q, want %q", got, want)
	}
	// A bad option stops the import before the trace is read.
	swim.Format = "csv"
	if _, err := Import(strings.NewReader(""), "c", swim); !errors.Is(err, ErrBadOption) {
		t.Errorf("bad format: %v", err)
	}
	rumen := swimOptions()
	rumen.Format, rumen.Topology = FormatRumen, "testdata/none.json"
	if _, err := Import(strings.NewReader(""), "d", rumen); err == nil || !strings.Contains(err.Error(), "testdata/none.json") {
		t.Errorf("missing topology: %v", err)
	}
}
