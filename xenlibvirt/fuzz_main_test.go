package xenlibvirt

import (
	"testing"

	"github.com/packer-sched/packer/internal/fuzzmin"
)

// TestMain bounds how long `go test -fuzz` minimizes an input (fuzzmin).
func TestMain(m *testing.M) { fuzzmin.Main(m) }
