package traces

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/packer-sched/packer/sim"
)

// RumenSettings tune ReadRumen. The zero value is valid.
type RumenSettings struct {
	// Window selects jobs by submit time.
	Window Window
	// SkipBad skips malformed job records (counted in Metadata.SkippedBad)
	// instead of stopping at the first. A truncated or corrupt gzip stream
	// still stops the import: nothing after it can be read.
	SkipBad bool
	// KeepFailed keeps jobs whose outcome is not SUCCESS; by default they are
	// dropped and counted in Metadata.DroppedFailed.
	KeepFailed bool
	// Topology gives the cluster's hosts and racks. Hosts the trace names
	// that it lacks are added in the racks the trace gives them. Without a
	// topology the cluster is the hosts the trace names.
	Topology *Topology
	// MapSlots and ReduceSlots per node; 0 infers each from the trace as the
	// most attempts of that kind it shows running at once on one host (a
	// lower bound on the real slot count), or 2 and 1 if it shows none.
	MapSlots, ReduceSlots int
	// Replication is the cluster's replica count for the simulator; default
	// 3. The jobs' blocks come from the trace whatever it is.
	Replication int
	// Nodes, if not 0, moves the jobs onto a cluster of Nodes nodes in
	// Racks racks (default 1) instead of the trace's hosts, to ask what the
	// real jobs would do on a cluster of one's own. The trace's block
	// locations name hosts that cluster does not have, so maps read no block
	// there and run at their base (node-local) times.
	Nodes, Racks int
	// RackFactor and RemoteFactor are what a rack-local and an off-rack map
	// cost relative to a node-local one, as sim.Settings has them (defaults
	// 1.2 and 2, the simulator's). A map's recorded time is divided by the
	// factor of where it really ran, so that the simulator, which multiplies
	// by the factor of where it places the task, gives back the real time
	// when it places the task as Hadoop did.
	RackFactor, RemoteFactor float64
}

func (s *RumenSettings) validate() (RumenSettings, error) {
	v := valueOrZero(s)
	if err := v.Window.validate(); err != nil {
		return v, fmt.Errorf("traces: rumen: %w", err)
	}
	if v.MapSlots < 0 || v.ReduceSlots < 0 || v.MapSlots > sim.MaxSlotsPerNode || v.ReduceSlots > sim.MaxSlotsPerNode {
		return v, fmt.Errorf("traces: rumen: slots per node must lie in 0..%d, got %d map and %d reduce", sim.MaxSlotsPerNode, v.MapSlots, v.ReduceSlots)
	}
	setDefault(&v.RackFactor, 1.2)
	setDefault(&v.RemoteFactor, 2)
	if !(v.RackFactor >= 1 && v.RemoteFactor >= 1 && v.RackFactor <= 1e6 && v.RemoteFactor <= 1e6) {
		return v, fmt.Errorf("traces: rumen: RackFactor and RemoteFactor must lie in [1, 10⁶], got %v and %v", v.RackFactor, v.RemoteFactor)
	}
	if v.Nodes < 0 || v.Racks < 0 || v.Racks > 0 && v.Nodes == 0 {
		return v, fmt.Errorf("traces: rumen: Nodes must not be negative and Racks needs Nodes, got %d and %d", v.Nodes, v.Racks)
	}
	if v.Replication < 0 {
		return v, fmt.Errorf("traces: rumen: Replication must not be negative, got %d", v.Replication)
	}
	return v, nil
}

// RealJob is what a trace says happened to an imported job. Times are
// seconds on the workload's clock (arrival 0 is the earliest imported
// submission).
type RealJob struct {
	ID, Outcome            string
	Submit, Launch, Finish float64
	// Start is when the first of its tasks' attempts started.
	Start float64
	// Bytes are the HDFS and local bytes read and written by the attempts
	// that produced the job's tasks.
	Bytes int64
	// CPUSeconds is their CPU time, or −1 when the trace has no CPU
	// counters.
	CPUSeconds float64
}

// Response is the job's real time from submission to finish.
func (r RealJob) Response() float64 { return r.Finish - r.Submit }

// The subset of Rumen's LoggedJob that the importer reads.
type rumenJob struct {
	JobID       *string     `json:"jobID"`
	User        string      `json:"user"`
	Priority    string      `json:"priority"`
	SubmitTime  *int64      `json:"submitTime"`
	LaunchTime  int64       `json:"launchTime"`
	FinishTime  int64       `json:"finishTime"`
	Outcome     string      `json:"outcome"`
	MapTasks    []rumenTask `json:"mapTasks"`
	ReduceTasks []rumenTask `json:"reduceTasks"`
}

type rumenTask struct {
	Attempts           []rumenAttempt `json:"attempts"`
	PreferredLocations []struct {
		Layers []string `json:"layers"`
	} `json:"preferredLocations"`
}

type rumenAttempt struct {
	HostName             string `json:"hostName"`
	Result               string `json:"result"`
	StartTime            int64  `json:"startTime"`
	FinishTime           int64  `json:"finishTime"`
	ShuffleFinished      int64  `json:"shuffleFinished"`
	HDFSBytesRead        int64  `json:"hdfsBytesRead"`
	HDFSBytesWritten     int64  `json:"hdfsBytesWritten"`
	FileBytesRead        int64  `json:"fileBytesRead"`
	FileBytesWritten     int64  `json:"fileBytesWritten"`
	ResourceUsageMetrics *struct {
		CumulativeCPUUsage int64 `json:"cumulativeCpuUsage"`
	} `json:"resourceUsageMetrics"`
}

// hostTable interns host names as they are met, with the rack of each.
type hostTable struct {
	id    map[string]int32
	names []string
	rack  []string
	// fromTopology is the number of hosts the topology gave.
	fromTopology int
}

func newHostTable(t *Topology) *hostTable {
	h := &hostTable{id: map[string]int32{}}
	if t != nil {
		for _, r := range t.Racks {
			for _, host := range r.Hosts {
				h.add(r.Name, host)
			}
		}
		h.fromTopology = len(h.names)
	}
	return h
}

func (h *hostTable) add(rack, host string) int32 {
	if id, ok := h.id[host]; ok {
		if h.rack[id] == unknownRack {
			h.rack[id] = rack // first met without its rack
		}
		return id
	}
	id := int32(len(h.names))
	h.id[host] = id
	h.names = append(h.names, host)
	h.rack = append(h.rack, rack)
	return id
}

// unknownRack holds the hosts the trace names without a rack, anywhere.
const unknownRack = "(unknown)"

// attempt interns an attempt's host, written "/rack/host" or, in some
// records, just "host": a host known from elsewhere keeps its rack, an
// unknown one without a rack goes into a rack named "(unknown)".
func (h *hostTable) attempt(name string) (int32, bool) {
	s := unescapeRumen(strings.TrimPrefix(name, "/"))
	rack, host := unknownRack, s
	if i := strings.LastIndexByte(s, '/'); i >= 0 {
		rack, host = s[:i], s[i+1:]
		if rack == "" {
			rack = unknownRack
		}
	}
	if host == "" {
		return 0, false
	}
	return h.add(rack, host), true
}

// topology is the table's hosts grouped by rack, racks in order of first
// appearance.
func (h *hostTable) topology() *Topology {
	t := &Topology{}
	at := map[string]int{}
	for i, host := range h.names {
		k, ok := at[h.rack[i]]
		if !ok {
			k = len(t.Racks)
			at[h.rack[i]] = k
			t.Racks = append(t.Racks, Rack{Name: h.rack[i]})
		}
		t.Racks[k].Hosts = append(t.Racks[k].Hosts, host)
	}
	return t
}

// span is a task attempt's time on a host's slot, for inferring slots.
type span struct {
	host       int32
	kind       sim.Kind
	start, end int64
}

// pendingJob is a converted job whose blocks still name hosts, not nodes.
type pendingJob struct {
	job    sim.Job
	blocks [][]int32 // host ids per map; nil for a job that reads no block
	real   RealJob
}

// rumenStats are counts the conversion reports in the metadata.
type rumenStats struct {
	noSuccess int    // tasks of kept jobs without a successful attempt
	neverRan  int    // tasks with no attempt that has times
	ranHere   int    // maps whose replicas were unknown, placed where they ran
	renamed   int    // jobs whose ID repeats an earlier one
	zeroTask  int    // task durations of 0 ms raised to minTask
	realLoc   [3]int // maps that really ran node-local, rack-local, remote
}

var rumenPriority = map[string]int{"VERY_LOW": -2, "LOW": -1, "": 0, "NORMAL": 0, "HIGH": 1, "VERY_HIGH": 2}

// ReadRumen reads a Rumen job trace (plain or gzipped): JSON job objects one
// after another, read one object at a time so a trace of any size streams.
// Each kept job becomes a simulation job with its real successful attempts'
// durations, its maps' real replica hosts mapped onto the topology's nodes,
// and its real submit time; Imported.Real says what really happened to it.
// name is the file's name in errors and metadata; errors are
// *model.InputError with the record's line and byte offset (in the
// decompressed stream).
//
// The simulator starts reduces when the last map ends, where Hadoop starts
// them early to copy map output as it appears; a reduce's duration is
// therefore the part of its successful attempt after the job's last map
// finished (or after its own shuffle finished, if that is longer: the hosts'
// clocks disagree by seconds).
//
// The import runs in three steps: readJobs takes the records in the window
// (rumenReader.take), convert turns each into a pendingJob whose blocks still
// name hosts, and assemble lays the hosts out as simulated nodes and writes
// the metadata.
func ReadRumen(r io.Reader, name string, set *RumenSettings) (*Imported, error) {
	s, in, bad, err := validateAndOpen(r, name, set.validate)
	if err != nil {
		return nil, err
	}
	rr := &rumenReader{set: s, hosts: newHostTable(s.Topology), names: map[string]int{},
		im: &Imported{Meta: Metadata{Format: "rumen", Source: name}}}
	if err := rr.readJobs(in); err != nil {
		return nil, bad(err)
	}
	im, err := rr.assemble(baseName(name))
	if err != nil {
		return nil, bad(err)
	}
	return im, nil
}

// rumenReader is one Rumen import under way.
type rumenReader struct {
	set    RumenSettings
	im     *Imported
	hosts  *hostTable
	jobs   []pendingJob
	spans  []span // every timed attempt of every record, for inferSlots
	st     rumenStats
	origin int64          // the first record's submit time, epoch ms
	names  map[string]int // how often each job ID was taken, to rename repeats
}

// readJobs reads job records until the end of the trace or a full window.
// A malformed record stops it, or is counted with SkipBad unless nothing
// after it can be read.
func (rr *rumenReader) readJobs(in io.Reader) error {
	sp := &splitter{r: bufio.NewReaderSize(in, 256<<10), line: 1, resync: rr.set.SkipBad}
	for {
		obj, at, err := sp.next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		var rj rumenJob
		if err == nil {
			err = decodeRumenJob(obj, at, &rj)
		}
		if err != nil {
			var fatal *fatalError
			if rr.set.SkipBad && !errors.As(err, &fatal) {
				rr.im.Meta.SkippedBad++
				continue
			}
			return fmt.Errorf("job record at %s: %w", at, err)
		}
		if !rr.take(&rj) {
			return nil
		}
	}
}

// decodeRumenJob decodes one record into rj and checks it.
func decodeRumenJob(obj []byte, at where, rj *rumenJob) error {
	if err := json.Unmarshal(obj, rj); err != nil {
		return recordJSONError(obj, at, err)
	}
	return rj.check()
}

// take counts a well-formed record and keeps its job when the window, its
// outcome and its tasks allow. It returns false when the window is full:
// nothing more is to be read.
func (rr *rumenReader) take(rj *rumenJob) bool {
	m := &rr.im.Meta
	if m.Records == 0 {
		rr.origin = *rj.SubmitTime
	}
	m.Records++
	rr.spans = rj.spans(rr.hosts, rr.spans)
	switch {
	case rr.set.Window.full(len(rr.jobs)):
		m.OutsideWindow++
		return false
	case !rr.set.Window.admits(float64(*rj.SubmitTime-rr.origin) / 1000):
		m.OutsideWindow++
		return true
	case rj.Outcome != "SUCCESS" && !rr.set.KeepFailed:
		m.DroppedFailed++
		return true
	}
	pj, ok := rj.convert(rr.hosts, &rr.st, &rr.set, rr.origin)
	if !ok {
		// Nothing of the job ran: a failed job killed before its tasks.
		m.DroppedFailed++
		return true
	}
	base := pj.job.Name
	if k := rr.names[base]; k > 0 {
		pj.job.Name = fmt.Sprintf("%s#%d", base, k+1)
		rr.st.renamed++
	}
	rr.names[base]++
	rr.jobs = append(rr.jobs, pj)
	return true
}

// assemble builds the import from the jobs taken: the cluster, the blocks on
// its nodes, arrivals from 0, and the metadata.
func (rr *rumenReader) assemble(name string) (*Imported, error) {
	im, s := rr.im, &rr.set
	if len(rr.jobs) == 0 {
		return nil, fmt.Errorf("no jobs to import (%d records, %d outside the window, %d failed dropped, %d malformed skipped)",
			im.Meta.Records, im.Meta.OutsideWindow, im.Meta.DroppedFailed, im.Meta.SkippedBad)
	}
	if s.Nodes == 0 && len(rr.hosts.names) == 0 {
		return nil, errors.New("the trace names no hosts and no topology was given: no cluster to replay on (give a topology, or Nodes)")
	}
	lay := rr.hosts.topology().layout()
	c, inferred := rr.cluster(lay)
	node := make([]int, len(rr.hosts.names))
	im.Hosts = make([]string, len(rr.hosts.names))
	for i, h := range rr.hosts.names {
		node[i] = lay.Node[h]
		im.Hosts[node[i]] = h
	}
	w := &sim.Workload{Name: name, Cluster: c, Jobs: rr.simJobs(node)}
	shift := shiftArrivals(w.Jobs)
	for i := range im.Real {
		im.Real[i].shift(shift)
	}
	im.Workload = w
	im.Meta.Origin = float64(rr.origin)/1000 + shift
	im.Meta.count(w.Jobs)
	im.Meta.Assumptions = rr.assumptions(c, lay, inferred)
	if s.Nodes > 0 {
		im.Hosts = nil
	}
	if err := w.Validate(); err != nil {
		return nil, err
	}
	return im, nil
}

// cluster is the simulated cluster: the trace's hosts and racks (or Nodes
// and Racks), with the slots per node given or, where not, inferred from the
// trace; inferred is what the trace shows, per kind.
func (rr *rumenReader) cluster(lay *Layout) (c sim.Cluster, inferred [2]int) {
	s := &rr.set
	c = lay.Cluster
	if s.Nodes > 0 {
		c = sim.Cluster{Nodes: s.Nodes, Racks: s.Racks}
	}
	c.MapSlots, c.ReduceSlots = s.MapSlots, s.ReduceSlots
	inferred = inferSlots(rr.spans)
	setDefault(&c.MapSlots, inferred[sim.Map])
	setDefault(&c.ReduceSlots, inferred[sim.Reduce])
	c.Replication = s.Replication
	return c.WithDefaults(), inferred
}

// simJobs returns the simulation jobs, their blocks' hosts turned into
// nodes (node[host id]), and fills im.Real beside them. On a cluster of
// Nodes the trace's hosts do not exist: no job reads a block.
func (rr *rumenReader) simJobs(node []int) []sim.Job {
	jobs := make([]sim.Job, len(rr.jobs))
	rr.im.Real = make([]RealJob, len(rr.jobs))
	for i := range rr.jobs {
		pj := &rr.jobs[i]
		if rr.set.Nodes > 0 {
			pj.job.NoInput = true
		} else if pj.blocks != nil {
			pj.job.Blocks = make([][]int, len(pj.blocks))
			for m, reps := range pj.blocks {
				pj.job.Blocks[m] = make([]int, len(reps))
				for k, h := range reps {
					pj.job.Blocks[m][k] = node[h]
				}
			}
		}
		jobs[i] = pj.job
		rr.im.Real[i] = pj.real
	}
	return jobs
}

// shift moves the real job's times by the shift that made arrival 0 the
// earliest submission.
func (r *RealJob) shift(by float64) {
	r.Submit -= by
	r.Launch -= by
	r.Finish -= by
	r.Start -= by
}

// assumptions say in words how the import was built from the trace.
func (rr *rumenReader) assumptions(c sim.Cluster, lay *Layout, inferred [2]int) []string {
	s, st, hosts := &rr.set, &rr.st, rr.hosts
	slotNote := func(k sim.Kind, given, got int) string {
		if given > 0 {
			return fmt.Sprintf("%d %s slots per node (given)", got, k)
		}
		if inferred[k] == 0 {
			return fmt.Sprintf("%d %s slots per node (the simulator's default: the trace shows no %s attempts)", got, k, k)
		}
		return fmt.Sprintf("%d %s slots per node: the most %s attempts the trace shows at once on one host", got, k, k)
	}
	where := fmt.Sprintf("cluster: %d hosts in %d racks (%d from the topology, %d more named by the trace); %d hosts sit in another simulated rack, since the simulator's racks are equal-sized",
		c.Nodes, c.Racks, hosts.fromTopology, len(hosts.names)-hosts.fromTopology, lay.Displaced)
	if s.Nodes > 0 {
		where = fmt.Sprintf("cluster: %d nodes in %d racks (given) instead of the trace's %d hosts; maps read no block there", c.Nodes, c.Racks, len(hosts.names))
	}
	notes := []string{
		"task durations are the successful attempts' finishTime − startTime (a task with none: its last attempt's)",
		"a reduce's duration is the part of its attempt after the job's last map finished (or after its shuffle finished, if longer): the simulator starts reduces when the maps are done",
		"maps read the blocks of their trace's preferredLocations; a job with no locations reads no block",
		fmt.Sprintf("maps with locations really ran %d node-local, %d rack-local, %d off-rack; their times were divided by 1, %g and %g to give node-local base times",
			st.realLoc[sim.NodeLocal], st.realLoc[sim.RackLocal], st.realLoc[sim.Remote], s.RackFactor, s.RemoteFactor),
		where,
		slotNote(sim.Map, s.MapSlots, c.MapSlots),
		slotNote(sim.Reduce, s.ReduceSlots, c.ReduceSlots),
		fmt.Sprintf("arrival 0 is submit time %.3f s (epoch) of the trace; arrivals keep the trace's gaps", rr.im.Meta.Origin),
	}
	return append(notes, counted(
		tally{st.noSuccess, "tasks without a successful attempt run for their last attempt's time"},
		tally{st.neverRan, "tasks with no timed attempt were left out"},
		tally{st.ranHere, "maps without preferred locations read a block on the host they ran on"},
		tally{st.renamed, "jobs repeat an earlier jobID and got a #k suffix"},
		tally{st.zeroTask, fmt.Sprintf("task durations of 0 ms were raised to %g s", minTask)},
	)...)
}

// check rejects a record the importer cannot use; errors name the field.
func (rj *rumenJob) check() error {
	if rj.JobID == nil || *rj.JobID == "" {
		return errors.New("jobID missing")
	}
	if rj.SubmitTime == nil || *rj.SubmitTime <= 0 || *rj.SubmitTime > 1e15 {
		return fmt.Errorf("job %s: submitTime must be positive epoch milliseconds, got %v", *rj.JobID, fmtPtr(rj.SubmitTime))
	}
	// The real job's times feed the validation tables: a missing or earlier
	// finish would make its real duration negative. A missing launch time
	// (0) is allowed and read as the submission.
	if rj.LaunchTime != 0 && (rj.LaunchTime < *rj.SubmitTime || rj.LaunchTime > 1e15) {
		return fmt.Errorf("job %s: launchTime %d is before submitTime %d", *rj.JobID, rj.LaunchTime, *rj.SubmitTime)
	}
	if rj.FinishTime < max(*rj.SubmitTime, rj.LaunchTime) || rj.FinishTime > 1e15 {
		return fmt.Errorf("job %s: finishTime must be epoch milliseconds at or after its submission and launch, got %d", *rj.JobID, rj.FinishTime)
	}
	return nil
}

func fmtPtr(p *int64) string {
	if p == nil {
		return "nothing"
	}
	return fmt.Sprint(*p)
}

// timed reports whether an attempt has a start and a finish. Real traces
// hold attempts that finish before they start (a killed attempt's finish is
// logged by another host's clock): those are treated as untimed.
func (a *rumenAttempt) timed() bool { return a.StartTime > 0 && a.FinishTime >= a.StartTime }

// chosen is the attempt that stands for the task: its first successful one,
// else its last timed one; nil if none has times.
func (t *rumenTask) chosen() (a *rumenAttempt, success bool) {
	for i := range t.Attempts {
		if t.Attempts[i].Result == "SUCCESS" && t.Attempts[i].timed() {
			return &t.Attempts[i], true
		}
	}
	for i := len(t.Attempts) - 1; i >= 0; i-- {
		if t.Attempts[i].timed() {
			return &t.Attempts[i], false
		}
	}
	return nil, false
}

// spans appends every timed attempt's slot time, for inferring slot counts.
func (rj *rumenJob) spans(h *hostTable, out []span) []span {
	for k, tasks := range [2][]rumenTask{rj.MapTasks, rj.ReduceTasks} {
		for _, t := range tasks {
			for _, a := range t.Attempts {
				id, ok := h.attempt(a.HostName)
				if !ok || !a.timed() {
					continue
				}
				out = append(out, span{host: id, kind: sim.Kind(k), start: a.StartTime, end: a.FinishTime})
			}
		}
	}
	return out
}

// seconds converts a duration in milliseconds for the simulator.
func seconds(ms int64, st *rumenStats) float64 {
	if ms <= 0 {
		st.zeroTask++
		return minTask
	}
	return min(float64(ms)/1000, sim.MaxTime)
}

// convert builds the simulation job; ok is false when no task of it ran.
func (rj *rumenJob) convert(h *hostTable, st *rumenStats, set *RumenSettings, origin int64) (pj pendingJob, ok bool) {
	cv := &conversion{st: st, first: math.MaxInt64}
	j, real := &cv.pj.job, &cv.pj.real
	j.Name, j.User, j.Priority = *rj.JobID, rj.User, rumenPriority[rj.Priority]
	real.ID, real.Outcome, real.CPUSeconds = *rj.JobID, rj.Outcome, -1
	lastMap := cv.maps(rj.MapTasks, h, set)
	cv.reduces(rj.ReduceTasks, lastMap)
	if len(j.Maps.Durations)+len(j.Reduces.Durations) == 0 {
		return cv.pj, false
	}
	// Times relative to the origin in integer milliseconds first: epoch
	// seconds as floats would lose the milliseconds' last digits.
	rel := func(ms int64) float64 { return float64(ms-origin) / 1000 }
	j.Arrival = rel(*rj.SubmitTime)
	launch := rj.LaunchTime
	setDefault(&launch, *rj.SubmitTime)
	real.Submit, real.Launch, real.Finish, real.Start = j.Arrival, rel(launch), rel(rj.FinishTime), rel(cv.first)
	return cv.pj, true
}

// conversion is one Rumen job being converted.
type conversion struct {
	pj    pendingJob
	st    *rumenStats
	first int64 // the earliest start of an attempt taken, epoch ms
}

// attempt returns the attempt that stands for task t (see chosen) and adds
// its bytes and CPU time to the real job; nil, counted, if none has times.
func (cv *conversion) attempt(t *rumenTask) *rumenAttempt {
	a, success := t.chosen()
	if a == nil {
		cv.st.neverRan++
		return nil
	}
	if !success {
		cv.st.noSuccess++
	}
	real := &cv.pj.real
	cv.first = min(cv.first, a.StartTime)
	for _, b := range []int64{a.HDFSBytesRead, a.HDFSBytesWritten, a.FileBytesRead, a.FileBytesWritten} {
		real.Bytes += max(b, 0)
	}
	if m := a.ResourceUsageMetrics; m != nil && m.CumulativeCPUUsage > 0 {
		real.CPUSeconds = max(real.CPUSeconds, 0) + float64(m.CumulativeCPUUsage)/1000
	}
	return a
}

// maps converts the map tasks and returns when the last one finished. The
// job reads blocks only if some map has preferred locations and every map
// has a block; otherwise it reads none.
func (cv *conversion) maps(tasks []rumenTask, h *hostTable, set *RumenSettings) (lastMap int64) {
	j := &cv.pj.job
	var blocks [][]int32
	withLocations, ranHere := false, 0
	var where []sim.Locality // where each map really ran, relative to its replicas
	for i := range tasks {
		t := &tasks[i]
		a := cv.attempt(t)
		if a == nil {
			continue
		}
		lastMap = max(lastMap, a.FinishTime)
		j.Maps.Durations = append(j.Maps.Durations, seconds(a.FinishTime-a.StartTime, cv.st))
		reps, loc, here := mapBlock(h, t, a)
		if here {
			ranHere++
		} else if len(reps) > 0 {
			withLocations = true
		}
		blocks = append(blocks, reps)
		where = append(where, loc)
	}
	if withLocations && !slices.ContainsFunc(blocks, func(r []int32) bool { return len(r) == 0 }) {
		cv.pj.blocks = blocks
		cv.st.ranHere += ranHere
		cv.baseTimes(where, set)
	} else {
		j.NoInput = true
	}
	return lastMap
}

// mapBlock returns the replica hosts of a map's block and where the map
// really ran relative to them. A map without preferred locations has its
// block on the host it ran on (here); one that also has no host reads none.
func mapBlock(h *hostTable, t *rumenTask, a *rumenAttempt) (reps []int32, loc sim.Locality, here bool) {
	for _, l := range t.PreferredLocations {
		if len(l.Layers) < 2 {
			continue
		}
		id := h.add(unescapeRumen(l.Layers[len(l.Layers)-2]), unescapeRumen(l.Layers[len(l.Layers)-1]))
		if !slices.Contains(reps, id) {
			reps = append(reps, id)
		}
	}
	ran, ranOK := h.attempt(a.HostName)
	switch {
	case !ranOK:
		return reps, sim.NoInput, false
	case len(reps) == 0:
		return []int32{ran}, sim.NodeLocal, true
	}
	loc = sim.Remote
	for _, r := range reps {
		switch {
		case r == ran:
			loc = sim.NodeLocal
		case h.rack[r] == h.rack[ran]:
			loc = min(loc, sim.RackLocal)
		}
	}
	return reps, loc, false
}

// baseTimes divides each map's recorded time by the cost of where it really
// ran: the recorded time includes the real locality's cost and the simulator
// adds its own for where it places the task, so the base is the node-local
// time.
func (cv *conversion) baseTimes(where []sim.Locality, set *RumenSettings) {
	d := cv.pj.job.Maps.Durations
	for m, loc := range where {
		switch loc {
		case sim.RackLocal:
			d[m] = max(d[m]/set.RackFactor, minTask)
		case sim.Remote:
			d[m] = max(d[m]/set.RemoteFactor, minTask)
		}
		if loc != sim.NoInput {
			cv.st.realLoc[loc]++
		}
	}
}

// reduces converts the reduce tasks: each runs for the part of its attempt
// after the job's last map finished, or after its own shuffle finished if
// that came first (the hosts' clocks disagree by seconds).
func (cv *conversion) reduces(tasks []rumenTask, lastMap int64) {
	for i := range tasks {
		a := cv.attempt(&tasks[i])
		if a == nil {
			continue
		}
		from := max(a.StartTime, lastMap)
		if a.ShuffleFinished >= a.StartTime && a.ShuffleFinished <= a.FinishTime {
			from = min(from, a.ShuffleFinished)
		}
		from = min(from, a.FinishTime)
		cv.pj.job.Reduces.Durations = append(cv.pj.job.Reduces.Durations, seconds(a.FinishTime-from, cv.st))
	}
}

// inferSlots returns, per kind, the most attempts running at once on one
// host: a sweep over each host's attempt starts and ends, ends first at equal
// times (a slot freed and reused in the same millisecond is one slot).
func inferSlots(spans []span) [2]int {
	type edge struct {
		host  int32
		kind  sim.Kind
		at    int64
		delta int
	}
	edges := make([]edge, 0, 2*len(spans))
	for _, s := range spans {
		edges = append(edges, edge{s.host, s.kind, s.start, 1}, edge{s.host, s.kind, s.end, -1})
	}
	slices.SortFunc(edges, func(a, b edge) int {
		switch {
		case a.host != b.host:
			return int(a.host - b.host)
		case a.kind != b.kind:
			return int(a.kind) - int(b.kind)
		case a.at != b.at:
			if a.at < b.at {
				return -1
			}
			return 1
		}
		return a.delta - b.delta
	})
	var best [2]int
	cur := 0
	for i, e := range edges {
		if i > 0 && (e.host != edges[i-1].host || e.kind != edges[i-1].kind) {
			cur = 0
		}
		cur += e.delta
		best[e.kind] = max(best[e.kind], cur)
	}
	return [2]int{min(best[0], sim.MaxSlotsPerNode), min(best[1], sim.MaxSlotsPerNode)}
}

// fatalError is a failure after which nothing more of the stream can be
// read (an I/O error, a truncated or corrupt gzip stream): SkipBad cannot
// skip it.
type fatalError struct{ err error }

func (e *fatalError) Error() string { return e.err.Error() }
func (e *fatalError) Unwrap() error { return e.err }

// maxRecord bounds one job record, in bytes: a real job of 100,000 tasks is
// about 100 MB of Rumen JSON.
const maxRecord = 1 << 30

// where is a record's place in the (decompressed) stream.
type where struct {
	line   int
	offset int64
}

func (w where) String() string { return fmt.Sprintf("line %d (byte %d)", w.line, w.offset) }

// splitter cuts a stream of concatenated JSON objects into one object at a
// time, tracking strings and nesting only. json.Decoder would stream too,
// but it cannot resume after a syntax error, and SkipBad must carry on at
// the next record: the splitter resynchronises at the next top-level '{'.
type splitter struct {
	r      *bufio.Reader
	buf    []byte
	offset int64
	line   int
	// resync is whether a record that is not an object is skipped (SkipBad):
	// only then does next look for the following one, so that without it a
	// stream of no objects at all (/dev/zero) is refused at its first byte.
	resync bool
}

func (s *splitter) read() (byte, error) {
	c, err := s.r.ReadByte()
	if err != nil {
		return 0, err
	}
	s.offset++
	if c == '\n' {
		s.line++
	}
	return c, nil
}

// next returns the next object's bytes (valid until the following call) and
// where it starts; io.EOF after the last one.
func (s *splitter) next() ([]byte, where, error) {
	var c byte
	var err error
	for {
		if c, err = s.read(); err != nil {
			if errors.Is(err, io.EOF) {
				return nil, where{s.line, s.offset}, io.EOF
			}
			return nil, where{s.line, s.offset}, &fatalError{readError(err)}
		}
		if c == '{' {
			break
		}
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			at := where{s.line, s.offset - 1}
			if !s.resync {
				return nil, at, fmt.Errorf("want a JSON object, found %q", c)
			}
			if err := s.skipTo(); err != nil {
				return nil, at, err
			}
			return nil, at, fmt.Errorf("want a JSON object, found %q", c)
		}
	}
	at := where{s.line, s.offset - 1}
	s.buf = append(s.buf[:0], '{')
	depth, inString, escaped := 1, false, false
	for depth > 0 {
		if c, err = s.read(); err != nil {
			if errors.Is(err, io.EOF) {
				return nil, at, &fatalError{fmt.Errorf("the stream ends inside this record (%d bytes in): truncated", len(s.buf))}
			}
			return nil, at, &fatalError{readError(err)}
		}
		if len(s.buf) >= maxRecord {
			return nil, at, &fatalError{fmt.Errorf("record longer than %d bytes", maxRecord)}
		}
		s.buf = append(s.buf, c)
		if c == '\n' && !inString && s.recordStartsHere() {
			return nil, at, fmt.Errorf("record unfinished (%d open brackets) when the next one starts on line %d", depth, s.line)
		}
		switch {
		case escaped:
			escaped = false
		case inString:
			switch c {
			case '\\':
				escaped = true
			case '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			depth++
		case c == '}' || c == ']':
			depth--
		}
	}
	return s.buf, at, nil
}

// recordStartsHere reports whether the line about to be read starts a new
// record: '{' in its first two columns. Rumen writes a record per line (" {")
// or pretty-printed with nested objects indented by at least two spaces, so
// inside a well-formed record no line starts so, and a record cut short
// (a bracket missing) ends here rather than swallowing the rest of the stream.
func (s *splitter) recordStartsHere() bool {
	b, _ := s.r.Peek(2)
	return len(b) > 0 && b[0] == '{' || len(b) > 1 && b[0] == ' ' && b[1] == '{'
}

// skipTo advances to just before the next '{', where the next record most
// likely starts, a buffer at a time; more than maxRecord bytes without one
// is not a trace, and ends the reading.
func (s *splitter) skipTo() error {
	for skipped := 0; ; {
		if _, err := s.r.Peek(1); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return &fatalError{readError(err)}
		}
		b, _ := s.r.Peek(s.r.Buffered())
		n := bytes.IndexByte(b, '{')
		if n < 0 {
			n = len(b)
		}
		s.line += bytes.Count(b[:n], []byte{'\n'})
		s.offset += int64(n)
		_, _ = s.r.Discard(n)
		if n < len(b) {
			return nil
		}
		if skipped += n; skipped > maxRecord {
			return &fatalError{fmt.Errorf("no JSON object in the %d bytes after it", maxRecord)}
		}
	}
}

// recordJSONError places a decoding error inside a record in the stream.
func recordJSONError(obj []byte, at where, err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		// Offset counts the bytes read up to and including the bad one.
		return fmt.Errorf("malformed JSON at byte %d: %v", at.offset+syn.Offset-1, syn)
	case errors.As(err, &typ):
		return fmt.Errorf("field %s near byte %d: want %v, got JSON %s", typ.Field, at.offset+typ.Offset, typ.Type, typ.Value)
	}
	return fmt.Errorf("%v", strings.TrimPrefix(err.Error(), "json: "))
}
