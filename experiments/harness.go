package experiments

import (
	"fmt"
	"math"
	"runtime"
	"slices"
	"strconv"
	"sync"
)

// DefaultSeeds is the number of seeds a zero Settings runs over; MaxSeeds
// is the most Settings accepts.
const (
	DefaultSeeds = 5
	MaxSeeds     = 1000
)

// Settings controls a run of experiments. The zero value runs the full
// workloads over seeds 1..DefaultSeeds.
type Settings struct {
	// Seeds: every experiment runs on the random seeds 1..Seeds; 0 means
	// DefaultSeeds, at most MaxSeeds.
	Seeds int
	// Small runs the reduced workloads (fewer jobs) where an experiment has
	// them, as the tests do.
	Small bool
	// Progress, if set, is called after each run of one experiment on one
	// seed finishes, from one goroutine at a time: done of total runs are
	// finished, the last of experiment name. A run of every experiment
	// takes minutes, so a terminal should show it is alive.
	Progress func(done, total int, name string)
}

func (s *Settings) validate() error {
	if s.Seeds == 0 {
		s.Seeds = DefaultSeeds
	}
	if s.Seeds < 1 || s.Seeds > MaxSeeds {
		return fmt.Errorf("experiments: Settings.Seeds must be between 1 and %d, got %d", MaxSeeds, s.Seeds)
	}
	return nil
}

// Value is a median over seeds with the range.
type Value struct {
	Median float64 `json:"median"`
	Min    float64 `json:"min"`
	Max    float64 `json:"max"`
}

// Row is one row of an experiment's result.
type Row struct {
	Label  string  `json:"label"`
	Values []Value `json:"values"`
	// Paper is the paper's number or claim for the row.
	Paper string `json:"paper,omitempty"`
}

// Result is an experiment's outcome over seeds.
type Result struct {
	Name    string   `json:"name"`
	Paper   Paper    `json:"paper"`
	Title   string   `json:"title"`
	Seeds   []uint64 `json:"seeds"`
	Columns []string `json:"columns"`
	Rows    []Row    `json:"rows"`
	Checks  []Check  `json:"checks"`
}

// Run runs the named experiments (see Select) over the seeds of s, in the
// order named.
func Run(names []string, s *Settings) ([]*Result, error) {
	var set Settings
	if s != nil {
		set = *s
	}
	if err := set.validate(); err != nil {
		return nil, err
	}
	chosen, err := Select(names)
	if err != nil {
		return nil, err
	}
	seeds := make([]uint64, set.Seeds)
	for i := range seeds {
		seeds[i] = uint64(i + 1)
	}
	out := make([]*Result, 0, len(chosen))
	total, done := len(chosen)*len(seeds), 0
	for _, e := range chosen {
		var tick func()
		if set.Progress != nil {
			tick = func() { done++; set.Progress(done, total, e.Name) }
		}
		r, err := evaluate(e, seeds, set.Small, tick)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// Evaluate runs e on every seed, one per core at a time; the result does not
// depend on which seed finishes first. Each value is summarised over the
// seeds and e's checks are evaluated on the medians.
func Evaluate(e Experiment, seeds []uint64, small bool) (*Result, error) {
	return evaluate(e, seeds, small, nil)
}

// evaluate is Evaluate calling tick (if not nil) after each seed's run, one
// call at a time.
func evaluate(e Experiment, seeds []uint64, small bool, tick func()) (*Result, error) {
	if len(seeds) == 0 {
		return nil, fmt.Errorf("experiments: %s: no seeds", e.Name)
	}
	tables := make([]Table, len(seeds))
	errs := make([]error, len(seeds))
	sem := make(chan struct{}, max(1, runtime.GOMAXPROCS(0)))
	var wg sync.WaitGroup
	var mu sync.Mutex
	for i, s := range seeds {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			tables[i], errs[i] = e.Run(s, small)
			if tick != nil {
				mu.Lock()
				tick()
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("experiments: %s, seed %d: %w", e.Name, seeds[i], err)
		}
	}
	r, med, err := summariseTables(e, tables)
	if err != nil {
		return nil, err
	}
	r.Seeds = slices.Clone(seeds)
	if e.Check != nil {
		r.Checks = e.Check(med)
	}
	return r, nil
}

// summariseTables summarises the per-seed tables of e cell by cell and
// returns the result (without seeds and checks) and the table of medians.
func summariseTables(e Experiment, tables []Table) (*Result, Table, error) {
	r := &Result{Name: e.Name, Paper: e.Paper, Title: e.Title, Columns: e.Columns}
	med := make(Table, len(e.Rows))
	for i, t := range tables {
		if len(t) != len(e.Rows) {
			return nil, nil, fmt.Errorf("experiments: %s: run %d gave %d rows, want %d", e.Name, i, len(t), len(e.Rows))
		}
	}
	for row, label := range e.Rows {
		er := Row{Label: label}
		if row < len(e.Reported) {
			er.Paper = e.Reported[row]
		}
		med[row] = make([]float64, len(e.Columns))
		xs := make([]float64, len(tables))
		for col := range e.Columns {
			for i, t := range tables {
				if len(t[row]) != len(e.Columns) {
					return nil, nil, fmt.Errorf("experiments: %s: run %d, row %q has %d values, want %d", e.Name, i, label, len(t[row]), len(e.Columns))
				}
				xs[i] = t[row][col]
			}
			v := Summarise(xs)
			er.Values = append(er.Values, v)
			med[row][col] = v.Median
		}
		r.Rows = append(r.Rows, er)
	}
	return r, med, nil
}

// Summarise is the median of xs (the mean of the middle two for an even
// count) and their range. xs must not be empty.
func Summarise(xs []float64) Value {
	s := slices.Clone(xs)
	slices.Sort(s)
	m := s[len(s)/2]
	if len(s)%2 == 0 {
		m = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return Value{Median: m, Min: s[0], Max: s[len(s)-1]}
}

// Format writes v for a report over the given number of seeds: the median
// alone for one seed or no spread, else "median [min–max]"; 0 decimals from
// 100 up, 1 from 10, else 2.
func (v Value) Format(seeds int) string {
	f := func(x float64) string { return strconv.FormatFloat(x, 'f', decimals(x), 64) }
	if seeds == 1 || v.Min == v.Max {
		return f(v.Median)
	}
	return fmt.Sprintf("%s [%s–%s]", f(v.Median), f(v.Min), f(v.Max))
}

func decimals(x float64) int {
	switch a := math.Abs(x); {
	case a >= 100:
		return 0
	case a >= 10:
		return 1
	}
	return 2
}
