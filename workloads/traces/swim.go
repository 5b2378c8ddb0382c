package traces

import (
	"bufio"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/packer-sched/packer/model"
	"github.com/packer-sched/packer/sim"
)

// SWIMSettings tune ReadSWIM. The zero value is valid: every field's doc
// gives its default.
//
// A SWIM trace has bytes but no task counts and no times, so the importer
// derives them with a throughput model, stated here and in the output's
// metadata. For a job with input I, shuffle S and output O bytes:
//
//	maps    m = max(1, ⌈I / BlockBytes⌉), or ⌈max(I, O) / BlockBytes⌉ if r = 0
//	map     TaskSeconds + (I/m) / (MapMBps·10⁶)           (+ (O/m) / (ReduceMBps·10⁶) if r = 0)
//	reduces r = ⌈max(S, O) / ReduceBytes⌉ (0 when S = 0)
//	reduce  TaskSeconds + ((S+O)/r) / (ReduceMBps·10⁶)
//
// A job with no input reads no block (NoInput); the others' blocks are placed
// by the simulator from its seed.
type SWIMSettings struct {
	// Window selects jobs by submit time.
	Window Window
	// SkipBad skips malformed lines (counted in Metadata.SkippedBad) instead
	// of stopping at the first.
	SkipBad bool
	// Cluster is the simulated cluster. Zero fields take defaults: the nodes
	// of the Facebook cluster the trace samples, recognised by the file name
	// or the rate of submissions (600 for FB-2009, 3,000 for FB-2010, 600
	// when neither tells; ReadSWIM's Imported.Notes say which), in racks of
	// 20, with 2 map slots, 1 reduce slot and 3 replicas.
	Cluster sim.Cluster
	// BlockBytes is the HDFS block size, one map per block; default 64 MiB.
	BlockBytes int64
	// ReduceBytes is the bytes one reduce task handles, of shuffle or of
	// output, whichever is larger; default 1 GiB. Sizing by the larger keeps a
	// job that writes terabytes from a small shuffle from running for days on
	// a handful of reduces.
	ReduceBytes int64
	// MapMBps is one map task's read-and-process rate in MB/s (10⁶ bytes);
	// default 50.
	MapMBps float64
	// ReduceMBps is one reduce task's rate over its shuffle and output bytes
	// in MB/s; default 20.
	ReduceMBps float64
	// TaskSeconds is every task's fixed cost (JVM start, set-up) in seconds;
	// default 2.
	TaskSeconds float64
}

func (s *SWIMSettings) validate() (SWIMSettings, error) {
	v := valueOrZero(s)
	if err := v.Window.validate(); err != nil {
		return v, fmt.Errorf("traces: swim: %w", err)
	}
	if v.Cluster.Nodes == 0 {
		v.Cluster.Nodes = 600
		setDefault(&v.Cluster.Racks, 30)
	}
	setDefault(&v.Cluster.Racks, max(1, v.Cluster.Nodes/20))
	v.Cluster = v.Cluster.WithDefaults()
	if err := v.Cluster.Validate(); err != nil {
		return v, fmt.Errorf("traces: swim: %w", err)
	}
	setDefault(&v.BlockBytes, 64<<20)
	setDefault(&v.ReduceBytes, 1<<30)
	setDefault(&v.MapMBps, 50)
	setDefault(&v.ReduceMBps, 20)
	setDefault(&v.TaskSeconds, 2)
	switch {
	case v.BlockBytes < 0:
		return v, fmt.Errorf("traces: swim: BlockBytes must be positive, got %d", v.BlockBytes)
	case v.ReduceBytes < 0:
		return v, fmt.Errorf("traces: swim: ReduceBytes must be positive, got %d", v.ReduceBytes)
	case !finitePositive(v.MapMBps):
		return v, fmt.Errorf("traces: swim: MapMBps must be finite and positive, got %v", v.MapMBps)
	case !finitePositive(v.ReduceMBps):
		return v, fmt.Errorf("traces: swim: ReduceMBps must be finite and positive, got %v", v.ReduceMBps)
	case !finitePositive(v.TaskSeconds):
		return v, fmt.Errorf("traces: swim: TaskSeconds must be finite and positive, got %v", v.TaskSeconds)
	}
	return v, nil
}

func finitePositive(v float64) bool { return v > 0 && !math.IsInf(v, 0) }

// SWIMJob is one line of a SWIM trace: a job's submit time and its bytes.
type SWIMJob struct {
	ID string
	// Submit is seconds from the trace's start; Gap the seconds since the
	// previous submission.
	Submit, Gap float64
	// Input, Shuffle and Output are the map input, shuffle and reduce output
	// bytes.
	Input, Shuffle, Output int64
}

// ParseSWIMLine parses one tab-separated SWIM line: job id, submit time,
// gap, map input bytes, shuffle bytes, reduce output bytes. Errors name the
// field and its value.
func ParseSWIMLine(line string) (SWIMJob, error) {
	f := strings.Split(line, "\t")
	if len(f) != 6 {
		return SWIMJob{}, fmt.Errorf("want 6 tab-separated fields (id, submit, gap, input, shuffle, output bytes), got %d", len(f))
	}
	j := SWIMJob{ID: f[0]}
	if j.ID == "" {
		return j, errors.New("field 1 (job id) is empty")
	}
	for i, dst := range []*float64{&j.Submit, &j.Gap} {
		v, err := strconv.ParseFloat(f[i+1], 64)
		if err != nil || !(v >= 0 && v <= sim.MaxTime) {
			return j, fmt.Errorf("field %d (%s): want seconds between 0 and %g, got %q", i+2, []string{"submit", "gap"}[i], sim.MaxTime, f[i+1])
		}
		*dst = v
	}
	for i, dst := range []*int64{&j.Input, &j.Shuffle, &j.Output} {
		v, err := strconv.ParseInt(f[i+3], 10, 64)
		if err != nil || v < 0 {
			return j, fmt.Errorf("field %d (%s bytes): want a non-negative integer, got %q", i+4, []string{"input", "shuffle", "output"}[i], f[i+3])
		}
		*dst = v
	}
	return j, nil
}

// MaxTasks bounds the tasks of one imported job, map and reduce each: a job
// of more than ten million tasks is a typo in a trace, not a job. A whole
// import is bounded by the simulator's sim.MaxTasks.
const MaxTasks = 10_000_000

// job turns a SWIM line into a simulation job with the throughput model.
func (s *SWIMSettings) job(sj SWIMJob) (sim.Job, error) {
	const mb = 1e6
	var reduces int64
	if sj.Shuffle > 0 {
		reduces = max(1, ceilDiv(max(sj.Shuffle, sj.Output), s.ReduceBytes))
	}
	// A map-only job's maps write its output: one per block written when
	// that is more than one per block read, or a job that generates 5 TB
	// from 3 MB would be one map running for three days.
	split := sj.Input
	if reduces == 0 {
		split = max(split, sj.Output)
	}
	maps := max(1, ceilDiv(split, s.BlockBytes))
	if maps > MaxTasks || reduces > MaxTasks {
		return sim.Job{}, fmt.Errorf("job %s: %d maps and %d reduces, more than %d", sj.ID, maps, reduces, MaxTasks)
	}
	mapSec := s.TaskSeconds + float64(sj.Input)/float64(maps)/(s.MapMBps*mb)
	j := sim.Job{Name: sj.ID, Arrival: sj.Submit, NoInput: sj.Input == 0}
	if reduces == 0 {
		mapSec += float64(sj.Output) / float64(maps) / (s.ReduceMBps * mb)
	} else {
		redSec := s.TaskSeconds + float64(sj.Shuffle+sj.Output)/float64(reduces)/(s.ReduceMBps*mb)
		j.Reduces = sim.Tasks{Count: int(reduces), Mean: clampTime(redSec)}
	}
	j.Maps = sim.Tasks{Count: int(maps), Mean: clampTime(mapSec)}
	return j, nil
}

func ceilDiv(a, b int64) int64 {
	if a <= 0 {
		return 0
	}
	return (a-1)/b + 1
}

// clampTime keeps a derived duration inside what the simulator accepts.
func clampTime(v float64) float64 { return min(max(v, minTask), sim.MaxTime) }

// ReadSWIM reads a SWIM trace (plain or gzipped) line by line and builds a
// simulation workload with the throughput model of SWIMSettings. name is the
// file's name in errors and metadata. A malformed line stops the import with
// a *model.InputError naming the file and line, unless SkipBad is set.
func ReadSWIM(r io.Reader, name string, set *SWIMSettings) (*Imported, error) {
	s, in, bad, err := validateAndOpen(r, name, set.validate)
	if err != nil {
		return nil, err
	}
	im := &Imported{Workload: &sim.Workload{Name: baseName(name), Cluster: s.Cluster},
		Meta: Metadata{Format: "swim", Source: name}}
	seen := map[string]int{}
	tasks := 0
	first, last := math.Inf(1), math.Inf(-1) // submit times read, for deriveSWIMCluster
	err = eachLine(in, func(line int, text string) (bool, error) {
		if strings.TrimSpace(text) == "" {
			return true, nil
		}
		sj, err := ParseSWIMLine(text)
		if err == nil {
			if prev, dup := seen[sj.ID]; dup {
				err = fmt.Errorf("job id %q already used on line %d", sj.ID, prev)
			}
		}
		var j sim.Job
		if err == nil {
			j, err = s.job(sj)
		}
		if err == nil && tasks+j.Maps.N()+j.Reduces.N() > sim.MaxTasks {
			err = fmt.Errorf("more than %d tasks in all", sim.MaxTasks)
		}
		if err != nil {
			if s.SkipBad {
				im.Meta.SkippedBad++
				return true, nil
			}
			return false, fmt.Errorf("line %d: %w", line, err)
		}
		seen[sj.ID] = line
		im.Meta.Records++
		first, last = min(first, sj.Submit), max(last, sj.Submit)
		if !s.Window.admits(sj.Submit) {
			im.Meta.OutsideWindow++
			return true, nil
		}
		if s.Window.full(len(im.Workload.Jobs)) {
			im.Meta.OutsideWindow++
			return false, nil
		}
		im.Workload.Jobs = append(im.Workload.Jobs, j)
		tasks += j.Maps.N() + j.Reduces.N()
		return true, nil
	})
	if err != nil {
		return nil, bad(err)
	}
	if len(im.Workload.Jobs) == 0 {
		return nil, bad(fmt.Errorf("no jobs to import (%d records, %d outside the window, %d malformed skipped)", im.Meta.Records, im.Meta.OutsideWindow, im.Meta.SkippedBad))
	}
	im.Meta.Origin = shiftArrivals(im.Workload.Jobs)
	im.Meta.count(im.Workload.Jobs)
	if set == nil || set.Cluster.Nodes == 0 {
		var note string
		if s.Cluster, note, err = deriveSWIMCluster(valueOrZero(set).Cluster, name, im.Meta.Records, last-first); err != nil {
			return nil, bad(err)
		}
		im.Workload.Cluster = s.Cluster
		im.Notes = append(im.Notes, note)
	}
	im.Meta.Assumptions = []string{
		fmt.Sprintf("maps = max(1, ceil(input bytes / %d)), one per HDFS block (of input, or of output if larger for map-only jobs)", s.BlockBytes),
		fmt.Sprintf("reduces = ceil(max(shuffle, output bytes) / %d), none without shuffle", s.ReduceBytes),
		fmt.Sprintf("map seconds = %g + (input/maps)/(%g MB/s) (+ (output/maps)/(%g MB/s) for map-only jobs)", s.TaskSeconds, s.MapMBps, s.ReduceMBps),
		fmt.Sprintf("reduce seconds = %g + ((shuffle+output)/reduces)/(%g MB/s); shuffle time is inside the reduces", s.TaskSeconds, s.ReduceMBps),
		"jobs without input read no block; other blocks are placed by the simulator's seed",
		fmt.Sprintf("cluster: %d nodes in %d racks, %d map and %d reduce slots per node (not in the trace)", s.Cluster.Nodes, s.Cluster.Racks, s.Cluster.MapSlots, s.Cluster.ReduceSlots),
		fmt.Sprintf("arrival 0 is submit time %g s of the trace", im.Meta.Origin),
	}
	if len(im.Notes) > 0 {
		im.Meta.Assumptions = append(im.Meta.Assumptions, "cluster chosen: "+im.Notes[0])
	}
	if err := im.Workload.Validate(); err != nil {
		return nil, bad(err)
	}
	return im, nil
}

// maxLine bounds a line of a line-based trace, in bytes.
const maxLine = 1 << 20

// eachLine calls fn with every line of r (numbered from 1, without its line
// ending) until fn returns false or an error. A read error, a truncated gzip
// stream among them, is reported before the incomplete line it cut is
// parsed, so a cut file is called cut rather than malformed.
func eachLine(r io.Reader, fn func(line int, text string) (more bool, err error)) error {
	br := bufio.NewReaderSize(r, maxLine)
	for line := 1; ; line++ {
		b, err := br.ReadSlice('\n')
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			return fmt.Errorf("line %d: longer than %d bytes", line, maxLine)
		case err != nil && !errors.Is(err, io.EOF):
			return fmt.Errorf("line %d: %w", line, readError(err))
		case err != nil && len(b) == 0:
			return nil
		}
		text := strings.TrimSuffix(strings.TrimSuffix(string(b), "\n"), "\r")
		more, ferr := fn(line, text)
		if ferr != nil || !more || err != nil {
			return ferr
		}
	}
}

// MaxTraceBytes is the most of a trace an importer reads: 16 GiB, counted
// in the file and again, for a gzipped trace, after decompression. The
// importers stream, so the bound is not memory's but time's: a trace of
// bytes of no use (/dev/zero, a gzip bomb) ends in one line instead of
// being read for ever.
const MaxTraceBytes = 16 << 30

// MaxTopologyBytes is the largest Rumen topology ReadTopology reads, in the
// file and decompressed: 64 MiB, some hundred thousand hosts.
const MaxTopologyBytes = 64 << 20

// maybeGzip returns r, decompressed if it starts with gzip's magic bytes,
// failing with model.TooLargeError after more than limit bytes of the file
// or of its decompressed stream, of the kind named ("a trace").
func maybeGzip(r io.Reader, limit int64, kind string) (io.Reader, error) {
	br := bufio.NewReaderSize(model.LimitReader(r, limit, kind), 64<<10)
	magic, err := br.Peek(2)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	if len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		z, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("gzip header: %w", readError(err))
		}
		return model.SkipBOM(model.LimitReader(z, limit, kind+", decompressed,")), nil
	}
	return model.SkipBOM(br), nil
}

// readError names a truncated gzip stream for what it is.
func readError(err error) error {
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("truncated input (gzip stream ends early): %w", err)
	}
	if errors.Is(err, gzip.ErrChecksum) || errors.Is(err, gzip.ErrHeader) {
		return fmt.Errorf("corrupt gzip stream: %w", err)
	}
	return err
}

// baseName is a file name without directories and without the .gz, .json,
// .tsv and .txt endings, used as the workload's name.
func baseName(name string) string {
	if i := strings.LastIndexAny(name, `/\`); i >= 0 {
		name = name[i+1:]
	}
	for _, ext := range []string{".gz", ".json", ".tsv", ".txt"} {
		name = strings.TrimSuffix(name, ext)
	}
	return name
}
