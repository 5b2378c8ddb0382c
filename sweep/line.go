package sweep

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"math"
	"strconv"

	"github.com/packer-sched/packer/plan"
	"github.com/packer-sched/packer/sim"
)

// Line is one point's result: its coordinates and either simulate's or
// plan's numbers, or the error that the point alone decided. Its JSON is
// one line of a shard file and of the merged results.
type Line struct {
	Index     int          `json:"index"`
	ID        string       `json:"id"`
	Run       string       `json:"run"`
	Workload  string       `json:"workload"`
	Nodes     *int         `json:"nodes,omitempty"`
	Hosts     *int         `json:"hosts,omitempty"`
	Policy    string       `json:"policy,omitempty"`
	Algorithm string       `json:"algorithm,omitempty"`
	Seed      uint64       `json:"seed"`
	Options   string       `json:"options"`
	Error     string       `json:"error,omitempty"`
	Simulate  *SimMetrics  `json:"simulate,omitempty"`
	Plan      *PlanMetrics `json:"plan,omitempty"`
}

// Num is a number that JSON writes as null when it is not finite (a
// slowdown over no jobs), and reads back as NaN.
type Num float64

func (n Num) MarshalJSON() ([]byte, error) {
	if math.IsNaN(float64(n)) || math.IsInf(float64(n), 0) {
		return []byte("null"), nil
	}
	return json.Marshal(float64(n))
}

func (n *Num) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*n = Num(math.NaN())
		return nil
	}
	return json.Unmarshal(b, (*float64)(n))
}

// SimMetrics are a simulate point's numbers, as packer simulate's summary
// names them (sim.SummaryColumns); times in seconds.
type SimMetrics struct {
	ClusterNodes      int   `json:"cluster_nodes"`
	Jobs              int   `json:"jobs"`
	Tasks             int   `json:"tasks"`
	Events            int64 `json:"events"`
	Makespan          Num   `json:"makespan"`
	MeanResponse      Num   `json:"mean_response"`
	MedianResponse    Num   `json:"median_response"`
	P95Response       Num   `json:"p95_response"`
	MeanSlowdown      Num   `json:"mean_slowdown"`
	MedianSlowdown    Num   `json:"median_slowdown"`
	P95Slowdown       Num   `json:"p95_slowdown"`
	V95               Num   `json:"v95"`
	NodeLocal         Num   `json:"node_local"`
	MapUtilisation    Num   `json:"map_utilisation"`
	ReduceUtilisation Num   `json:"reduce_utilisation"`
}

func simMetrics(w *sim.Workload, r *sim.Result) *SimMetrics {
	s := r.Summary
	local := Num(math.NaN()) // no map read a block: no locality to tell
	if r.Locality.WithInput() > 0 {
		local = Num(r.Locality.NodeFraction())
	}
	return &SimMetrics{ClusterNodes: w.Cluster.WithDefaults().Nodes, Jobs: len(r.Jobs), Tasks: r.Tasks, Events: r.Events,
		Makespan: Num(r.Makespan), MeanResponse: Num(s.MeanResponse), MedianResponse: Num(s.MedianResponse), P95Response: Num(s.P95Response),
		MeanSlowdown: Num(s.MeanSlowdown), MedianSlowdown: Num(s.MedianSlowdown), P95Slowdown: Num(s.P95Slowdown), V95: Num(s.V95),
		NodeLocal: local, MapUtilisation: Num(r.Utilisation[0]), ReduceUtilisation: Num(r.Utilisation[1])}
}

// PlanMetrics are a plan point's numbers, as the plan document names them.
type PlanMetrics struct {
	ClusterHosts       int    `json:"cluster_hosts"`
	Jobs               int    `json:"jobs"`
	Method             string `json:"method"`
	Phases             int    `json:"phases"`
	Makespan           Num    `json:"makespan"`
	SequentialMakespan Num    `json:"sequential_makespan"`
	SavingPercent      Num    `json:"saving_percent"`
	MeanCompletion     Num    `json:"mean_completion"`
	Optimum            *Num   `json:"optimum,omitempty"`
	LowerBound         *Num   `json:"lower_bound,omitempty"`
	GapPercent         *Num   `json:"gap_percent,omitempty"`
}

func planMetrics(pl *plan.Plan, method string) *PlanMetrics {
	num := func(x *float64) *Num {
		if x == nil {
			return nil
		}
		n := Num(*x)
		return &n
	}
	return &PlanMetrics{ClusterHosts: pl.Cluster.Hosts, Jobs: len(pl.Jobs), Method: method, Phases: len(pl.Phases),
		Makespan: Num(pl.Makespan), SequentialMakespan: Num(pl.SequentialMakespan), SavingPercent: Num(pl.SavingPercent),
		MeanCompletion: Num(pl.MeanCompletion), Optimum: num(pl.Optimum), LowerBound: num(pl.LowerBound), GapPercent: num(pl.GapPercent)}
}

// Results are the points' lines in index order, as run or merged.
type Results struct {
	Run   string
	Lines []Line
	// Raw are the lines' bytes, as written (no newline).
	Raw [][]byte
}

// JSONL is the results as JSON lines, one a point.
func (r *Results) JSONL() []byte {
	var b bytes.Buffer
	for _, l := range r.Raw {
		b.Write(l)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

var (
	simColumns = []string{"makespan", "mean_response", "median_response", "p95_response", "mean_slowdown", "median_slowdown",
		"p95_slowdown", "v95", "node_local", "map_utilisation", "reduce_utilisation", "cluster_nodes", "jobs", "tasks", "events"}
	planColumns = []string{"makespan", "sequential_makespan", "saving_percent", "mean_completion", "optimum", "lower_bound",
		"gap_percent", "method", "phases", "cluster_hosts", "jobs"}
)

// Header is the columns of Rows: the coordinates, then the numbers.
func (r *Results) Header() []string {
	if r.Run == Plan {
		return append([]string{"index", "id", "workload", "hosts", "algorithm", "seed", "options"}, append(planColumns, "error")...)
	}
	return append([]string{"index", "id", "workload", "nodes", "policy", "seed", "options"}, append(simColumns, "error")...)
}

// Rows are the results as text, one row a point; numbers in Go's shortest
// form, a missing one empty.
func (r *Results) Rows() [][]string {
	rows := make([][]string, len(r.Lines))
	for i, l := range r.Lines {
		row := []string{strconv.Itoa(l.Index), l.ID, l.Workload}
		if r.Run == Plan {
			row = append(row, size(l.Hosts), l.Algorithm, strconv.FormatUint(l.Seed, 10), l.Options)
			row = append(row, planRow(l.Plan)...)
		} else {
			row = append(row, size(l.Nodes), l.Policy, strconv.FormatUint(l.Seed, 10), l.Options)
			row = append(row, simRow(l.Simulate)...)
		}
		rows[i] = append(row, l.Error)
	}
	return rows
}

func size(n *int) string {
	if n == nil || *n == 0 {
		return "default"
	}
	return strconv.Itoa(*n)
}

func num(x Num) string {
	if math.IsNaN(float64(x)) {
		return ""
	}
	return strconv.FormatFloat(float64(x), 'g', -1, 64)
}

func optNum(x *Num) string {
	if x == nil {
		return ""
	}
	return num(*x)
}

func simRow(m *SimMetrics) []string {
	if m == nil {
		return make([]string, len(simColumns))
	}
	return []string{num(m.Makespan), num(m.MeanResponse), num(m.MedianResponse), num(m.P95Response), num(m.MeanSlowdown),
		num(m.MedianSlowdown), num(m.P95Slowdown), num(m.V95), num(m.NodeLocal), num(m.MapUtilisation), num(m.ReduceUtilisation),
		strconv.Itoa(m.ClusterNodes), strconv.Itoa(m.Jobs), strconv.Itoa(m.Tasks), strconv.FormatInt(m.Events, 10)}
}

func planRow(m *PlanMetrics) []string {
	if m == nil {
		return make([]string, len(planColumns))
	}
	return []string{num(m.Makespan), num(m.SequentialMakespan), num(m.SavingPercent), num(m.MeanCompletion),
		optNum(m.Optimum), optNum(m.LowerBound), optNum(m.GapPercent), m.Method, strconv.Itoa(m.Phases),
		strconv.Itoa(m.ClusterHosts), strconv.Itoa(m.Jobs)}
}

// CSV is the results as CSV, a header and a row a point.
func (r *Results) CSV() []byte {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	_ = w.Write(r.Header()) // a bytes.Buffer does not fail
	_ = w.WriteAll(r.Rows())
	return b.Bytes()
}
