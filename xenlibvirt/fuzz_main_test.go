package xenlibvirt

import (
	"flag"
	"os"
	"testing"
)

// TestMain bounds how long `go test -fuzz` minimizes each new input to 1,000
// tries, unless -fuzzminimizetime is given. Go's default is 60 s an input,
// and its minimizer tries every cut of an input, O(n²) runs for a document of
// n bytes, during which nothing else is fuzzed (golang/go#48820, "fuzzing is
// getting stuck in minimization"): FuzzUserData, whose seeds are cloud-init
// documents, ran about 450 executions a second. Minimizing a crasher
// further is -fuzzminimizetime 60s.
func TestMain(m *testing.M) {
	flag.Parse()
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.fuzzminimizetime" })
	if !given {
		if err := flag.Set("test.fuzzminimizetime", "1000x"); err != nil {
			panic(err)
		}
	}
	os.Exit(m.Run())
}
