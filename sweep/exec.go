package sweep

import "encoding/json"

// Progress is told of each point as it starts: its place among the
// shard's points (from 1) and how many the shard has.
type Progress func(p Point, n, of int)

// RunShard runs the shard's points that its file in dir lacks, one after
// another, appending each one's line to the file as it ends. It returns
// how many it ran.
func (s *Sweep) RunShard(dir string, sh Shard, progress Progress) (ran int, err error) {
	w, err := OpenShard(dir, s, sh)
	if err != nil {
		return 0, err
	}
	defer func() {
		if cerr := w.Close(); err == nil {
			err = cerr
		}
	}()
	points := sh.Select(s.points)
	for n, p := range points {
		if w.Done(p.Index) {
			continue
		}
		if progress != nil {
			progress(p, n+1, len(points))
		}
		line, err := s.RunPoint(p)
		if err != nil {
			return ran, err
		}
		if err := w.Add(p.Index, line); err != nil {
			return ran, err
		}
		ran++
	}
	return ran, nil
}

// RunAll runs every point in order and returns the results, as Merge
// returns them from the shards.
func (s *Sweep) RunAll(progress Progress) (*Results, error) {
	res := &Results{Run: s.Run}
	for n, p := range s.points {
		if progress != nil {
			progress(p, n+1, len(s.points))
		}
		raw, err := s.RunPoint(p)
		if err != nil {
			return nil, err
		}
		var l Line
		if err := json.Unmarshal(raw, &l); err != nil {
			return nil, err
		}
		res.Lines, res.Raw = append(res.Lines, l), append(res.Raw, raw)
	}
	return res, nil
}
