// Package fuzzmin bounds how long `go test -fuzz` minimizes each new input,
// for the fuzz targets whose inputs are documents of kilobytes.
//
// Go's default is 60 s an input, and its minimizer tries every cut of an
// input: O(n²) runs for an input of n bytes, during which nothing else is
// fuzzed (golang/go#48820, "fuzzing is getting stuck in minimization"). The
// plan fuzzers ran 5 and 3 executions in 10 s so, FuzzReadRumen 483. With
// minimization bounded they run thousands a second; minimizing a crasher
// further is -fuzzminimizetime 60s.
package fuzzmin

import (
	"flag"
	"os"
	"testing"
)

// Main is a package's TestMain: it parses the flags, bounds minimization
// to 1,000 tries unless -fuzzminimizetime is given, and runs the tests.
func Main(m *testing.M) {
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
