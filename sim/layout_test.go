package sim

import (
	"testing"
	"unsafe"
)

// TestJobRecordLines holds jobRec's layout: four whole cache lines, the
// fields that every launch, lookup and task end read in the first, the rest
// of what they may read in the second (which eventQueue.ahead prefetches
// too), and the cold ones last.
func TestJobRecordLines(t *testing.T) {
	var jr jobRec
	if got := unsafe.Sizeof(jr); got != 256 {
		t.Errorf("jobRec is %d bytes, want 256 (four lines, so every record in the array is line-aligned)", got)
	}
	line := func(name string, off, size uintptr, want uintptr) {
		t.Helper()
		if off/64 != want || (off+size-1)/64 != want {
			t.Errorf("jobRec.%s at bytes %d–%d, want it within line %d", name, off, off+size-1, want)
		}
	}
	line("cursor", unsafe.Offsetof(jr.cursor), unsafe.Sizeof(jr.cursor), 0)
	line("pending", unsafe.Offsetof(jr.pending), unsafe.Sizeof(jr.pending), 0)
	line("running", unsafe.Offsetof(jr.running), unsafe.Sizeof(jr.running), 0)
	line("done", unsafe.Offsetof(jr.done), unsafe.Sizeof(jr.done), 0)
	line("mapLo", unsafe.Offsetof(jr.mapLo), unsafe.Sizeof(jr.mapLo), 0)
	line("redHi", unsafe.Offsetof(jr.redHi), unsafe.Sizeof(jr.redHi), 0)
	line("blocks", unsafe.Offsetof(jr.blocks), unsafe.Sizeof(jr.blocks), 0)
	line("changed", unsafe.Offsetof(jr.changed), unsafe.Sizeof(jr.changed), 0)
	line("arrived", unsafe.Offsetof(jr.arrived), 1, 0)
	line("redsReady", unsafe.Offsetof(jr.redsReady), 1, 0)
	line("noInput", unsafe.Offsetof(jr.noInput), 1, 0)
	line("runPos", unsafe.Offsetof(jr.runPos), unsafe.Sizeof(jr.runPos), 1)
	line("loc", unsafe.Offsetof(jr.loc), unsafe.Sizeof(jr.loc), 1)
	line("requeued", unsafe.Offsetof(jr.requeued), unsafe.Sizeof(jr.requeued), 1)
	line("racks", unsafe.Offsetof(jr.racks), unsafe.Sizeof(jr.racks), 2)

	s := compile(benchWorkload(2e4), Settings{})
	if a := uintptr(unsafe.Pointer(unsafe.SliceData(s.jobs))); a%64 != 0 {
		t.Errorf("a run's %d job records start at %#x, not on a cache line", len(s.jobs), a)
	}
}
