package optimize

import (
	"reflect"
	"testing"
)

func TestRandomByName(t *testing.T) {
	w, ok, err := RandomByName("random-m20-seed7")
	if !ok || err != nil || !reflect.DeepEqual(w, RandomWorkload(7, 20)) || w.Name != "random-m20-seed7" {
		t.Errorf("random-m20-seed7: %v, %v, %v", w != nil, ok, err)
	}
	// Other names are not random workloads; leading zeros or extra text would
	// name a workload RandomWorkload does not call so.
	for _, name := range []string{"W1", "random-m20", "random-m20-seed7x", "random-m020-seed7", "xrandom-m20-seed7"} {
		if _, ok, _ := RandomByName(name); ok {
			t.Errorf("%q taken for a random workload", name)
		}
	}
	for _, name := range []string{"random-m0-seed1", "random-m-1-seed7", "random-m100001-seed1"} {
		if _, ok, err := RandomByName(name); !ok || err == nil {
			t.Errorf("%s: ok %v, err %v; want refused", name, ok, err)
		}
	}
}
