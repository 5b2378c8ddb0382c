package sim

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
)

// This file holds the machine-readable forms of a comparison (Compare's
// outcomes): the task-event trace, the per-job CSV, the summary CSV and the
// JSON document. Column names and number forms are part of the format:
// scripts read them.

// TraceCSV streams every run's events as CSV rows (policy, time, event, job,
// task, node, locality), buffered: a million tasks make hundreds of
// megabytes.
type TraceCSV struct {
	buf *bufio.Writer
	csv *csv.Writer
}

// NewTraceCSV starts a trace on w and writes its header.
func NewTraceCSV(w io.Writer) *TraceCSV {
	t := &TraceCSV{buf: bufio.NewWriterSize(w, 1<<20)}
	t.csv = csv.NewWriter(t.buf)
	_ = t.csv.Write([]string{"policy", "time", "event", "job", "task", "node", "locality"})
	return t
}

// Tracer is one run's tracer, for Comparison.Trace.
func (t *TraceCSV) Tracer(policy string, w *Workload) Tracer {
	return &csvTracer{w: t.csv, policy: policy, wl: w}
}

// Flush writes what is buffered and reports the first write error.
func (t *TraceCSV) Flush() error {
	t.csv.Flush()
	if err := t.csv.Error(); err != nil {
		return err
	}
	return t.buf.Flush()
}

// csvTracer writes a run's events as CSV rows.
type csvTracer struct {
	w      *csv.Writer
	policy string
	wl     *Workload
	row    [7]string
}

// Event writes one row; job events leave task, node and locality empty.
func (t *csvTracer) Event(e TraceEvent) {
	t.row = [7]string{t.policy, num(e.Time), e.Kind.String(), t.wl.Jobs[e.Job].Name, "", "", ""}
	if e.Task >= 0 {
		t.row[4], t.row[5], t.row[6] = strconv.Itoa(e.Task), strconv.Itoa(e.Node), e.Locality.String()
	}
	_ = t.w.Write(t.row[:])
}

// CSVPrecision is what the CSV outputs round their numbers to: a
// microsecond for times, a millionth for slowdowns, shares and
// utilisations. The digits below it are only the rounding of float sums
// (15.000104099999998 s for 15.000104 s); JSON keeps them.
const CSVPrecision = 1.0 / csvScale

// csvScale is 1 ÷ CSVPrecision, exact as a float64: a value scaled by it,
// rounded and divided by it again is the double nearest the rounded decimal.
const csvScale = 1e6

// num renders v rounded to CSVPrecision in the shortest form that reads
// back as the rounded value: 15.000104099999998 is 15.000104, 9 is 9.
func num(v float64) string {
	r := math.Round(v*csvScale) / csvScale
	if r == 0 {
		r = 0 // no "-0"
	}
	if math.IsInf(v*csvScale, 0) && !math.IsInf(v, 0) {
		r = v // too large to scale: far above the precision anyway
	}
	return strconv.FormatFloat(r, 'f', -1, 64)
}

// JobsCSV is one row per job and run: times, response, slowdown and the
// locality of its tasks.
func JobsCSV(runs []Outcome) []byte {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	_ = w.Write([]string{"policy", "job", "user", "submit", "start", "finish", "response", "slowdown", "node_local", "rack_local", "remote", "no_input"})
	for _, r := range runs {
		for _, j := range r.Result.Jobs {
			l := j.Locality
			_ = w.Write([]string{r.Result.Policy, j.Name, j.User, num(j.Submit), num(j.Start), num(j.Finish), num(j.Response), num(j.Slowdown),
				strconv.Itoa(l.Node), strconv.Itoa(l.Rack), strconv.Itoa(l.Remote), strconv.Itoa(l.None)})
		}
	}
	w.Flush()
	return b.Bytes()
}

// SummaryColumns are the comparison's summary columns, shared by the table
// the command line prints and SummaryCSV.
var SummaryColumns = []string{"policy", "makespan", "mean_response", "median_response", "p95_response",
	"mean_slowdown", "median_slowdown", "p95_slowdown", "v95", "node_local", "rack_local", "remote", "map_utilisation", "reduce_utilisation"}

// SummaryRow is one run's summary in SummaryColumns' order, each number
// rendered by the function for its kind: seconds, a ratio, or a share k of n
// (n may be 0).
func SummaryRow(r *Result, seconds func(float64) string, ratio func(float64) string, share func(k, n int) string) []string {
	s, l := r.Summary, r.Locality
	n := l.WithInput()
	return []string{r.Policy, seconds(r.Makespan), seconds(s.MeanResponse), seconds(s.MedianResponse), seconds(s.P95Response),
		ratio(s.MeanSlowdown), ratio(s.MedianSlowdown), ratio(s.P95Slowdown), ratio(s.V95),
		share(l.Node, n), share(l.Rack, n), share(l.Remote, n), ratio(r.Utilisation[Map]), ratio(r.Utilisation[Reduce])}
}

// SummaryCSV is one SummaryRow per run with numbers to CSVPrecision; a
// share of no tasks is empty.
func SummaryCSV(runs []Outcome) []byte {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	_ = w.Write(SummaryColumns)
	share := func(k, n int) string {
		if n == 0 {
			return ""
		}
		return num(float64(k) / float64(n))
	}
	for _, r := range runs {
		_ = w.Write(SummaryRow(r.Result, num, num, share))
	}
	w.Flush()
	return b.Bytes()
}

// Results are the results of the runs, in order; with w not nil, only
// those of runs on w (not a plan replay's own workload).
func Results(runs []Outcome, w *Workload) []*Result {
	var out []*Result
	for _, r := range runs {
		if w == nil || r.Workload == w {
			out = append(out, r.Result)
		}
	}
	return out
}

// WriteJSON writes the comparison as one JSON document: the workload's name,
// the seed, the task count, the cluster, the idle-cluster note (IdleNote of
// the runs on w) if any, the ranking if not nil, and every run's Result.
func WriteJSON(out io.Writer, w *Workload, seed uint64, runs []Outcome, ranking *Ranking) error {
	doc := struct {
		Workload string       `json:"workload"`
		Seed     uint64       `json:"seed"`
		Tasks    int          `json:"tasks"`
		Cluster  Cluster      `json:"cluster"`
		Idle     *IdleCluster `json:"idle_cluster,omitempty"`
		Ranking  *Ranking     `json:"ranking,omitempty"`
		Policies []*Result    `json:"policies"`
	}{Workload: w.Name, Seed: seed, Tasks: w.Tasks(), Cluster: w.Cluster, Idle: IdleNote(w, Results(runs, w)), Ranking: ranking}
	for _, r := range runs {
		doc.Policies = append(doc.Policies, r.Result)
	}
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return fmt.Errorf("sim: %w", err)
	}
	_, err = out.Write(append(b, '\n'))
	return err
}
