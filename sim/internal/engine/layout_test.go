package engine

import (
	"testing"
	"unsafe"
)

// TestJobRecordLines: a job record is three whole cache lines and a large
// run's job array starts on one, so that what every launch and task end
// reads and writes shares the first line, the rack filter is the third, and
// ahead's three prefetches of a record (at mapLo, blocks and racks) are its
// three lines; the queue's pool entry and the task records are the sizes
// ahead relies on too, and the task array starts on a line.
func TestJobRecordLines(t *testing.T) {
	const line = 64
	var jr jobRec
	if size := unsafe.Sizeof(jr); size != 3*line {
		t.Fatalf("a job record is %d bytes, want %d (three lines)", size, 3*line)
	}
	type field struct {
		name       string
		off, size  uintptr
		start, end uintptr // the bytes of the record it must lie in
	}
	first := func(name string, off, size uintptr) field { return field{name, off, size, 0, line} }
	fields := []field{
		first("mapLo", unsafe.Offsetof(jr.mapLo), unsafe.Sizeof(jr.mapLo)),
		first("redHi", unsafe.Offsetof(jr.redHi), unsafe.Sizeof(jr.redHi)),
		first("cursor", unsafe.Offsetof(jr.cursor), unsafe.Sizeof(jr.cursor)),
		first("pending", unsafe.Offsetof(jr.pending), unsafe.Sizeof(jr.pending)),
		first("running", unsafe.Offsetof(jr.running), unsafe.Sizeof(jr.running)),
		first("changed", unsafe.Offsetof(jr.changed), unsafe.Sizeof(jr.changed)),
		first("arrived", unsafe.Offsetof(jr.arrived), unsafe.Sizeof(jr.arrived)),
		first("redsReady", unsafe.Offsetof(jr.redsReady), unsafe.Sizeof(jr.redsReady)),
		first("noInput", unsafe.Offsetof(jr.noInput), unsafe.Sizeof(jr.noInput)),
		first("done", unsafe.Offsetof(jr.done), unsafe.Sizeof(jr.done)),
		first("runPos", unsafe.Offsetof(jr.runPos), unsafe.Sizeof(jr.runPos)),
		{"blocks", unsafe.Offsetof(jr.blocks), unsafe.Sizeof(jr.blocks), line, line + 8},
		{"loc", unsafe.Offsetof(jr.loc), unsafe.Sizeof(jr.loc), line, 2 * line},
		{"racks", unsafe.Offsetof(jr.racks), unsafe.Sizeof(jr.racks), 2 * line, 3 * line},
	}
	// The queue's pool entry keeps a task end's job in what would be
	// padding: an event and two int32, 32 bytes.
	if size := unsafe.Sizeof(queued{}); size != 32 {
		t.Errorf("a pool entry is %d bytes, want 32", size)
	}
	if unsafe.Offsetof(jr.mapLo) != 0 {
		t.Errorf("mapLo at byte %d, want 0: ahead prefetches the first line at it", unsafe.Offsetof(jr.mapLo))
	}
	for _, f := range fields {
		if f.off < f.start || f.off+f.size > f.end {
			t.Errorf("%s is bytes %d–%d of the job record, want it within %d–%d", f.name, f.off, f.off+f.size, f.start, f.end)
		}
	}

	// The benchmark's shape at 10⁵ tasks: 952 jobs, 183 KB of records, an
	// allocation of its own, which Go starts on a page.
	st := testConfig(Settings{Seed: 1})
	s := compile(benchWorkload(1e5), st)
	if at := uintptr(unsafe.Pointer(&s.jobs[0])); at%line != 0 {
		t.Errorf("the job records of %d jobs start at %#x, not on a cache line", len(s.jobs), at)
	}
	// Two task records a line, the first at an even index: ahead prefetches
	// the task after an ending one only when that starts a line.
	if size := unsafe.Sizeof(taskRec{}); size != line/2 {
		t.Errorf("a task record is %d bytes, want %d", size, line/2)
	}
	if at := uintptr(unsafe.Pointer(&s.tasks[0])); at%line != 0 {
		t.Errorf("the records of %d tasks start at %#x, not on a cache line", len(s.tasks), at)
	}
}
