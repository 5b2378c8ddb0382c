package model

import (
	"encoding/json"
	"fmt"
	"slices"
)

// FileKind names one of the JSON files packer reads and writes, as a person
// would recognise it, with the command that makes it.
type FileKind string

// The files SniffFile tells apart.
const (
	FileUnknown     FileKind = ""
	FilePlan        FileKind = "a plan document (from packer plan --output)"
	FileWorkload    FileKind = "a packer workload file (job models)"
	FileSimWorkload FileKind = "a simulation workload (tasks, from packer workloads import)"
	FileSimResults  FileKind = "simulation results (from packer simulate --format json)"
	FileInventory   FileKind = "a host inventory"
)

// WrongFileError is a reader given another of packer's files than the one it
// reads (a plan document where a workload is wanted, ...).
type WrongFileError struct {
	Got, Want FileKind
}

func (e *WrongFileError) Error() string { return fmt.Sprintf("%s, not %s", e.Got, e.Want) }

// SniffFile tells by its shape which of packer's files data is: a plan
// document has "phases" and "makespan"; simulation results are an array of,
// or an object with "results" or "policies" holding, objects with "policy";
// an inventory has "hosts" with "uri"; a workload's jobs have a "model" and a
// simulation workload's jobs "maps" or "reduces". Anything else is
// FileUnknown. Only the first element of an array is looked at.
func SniffFile(data []byte) FileKind {
	data = TrimBOM(data)
	var arr []map[string]json.RawMessage
	if json.Unmarshal(data, &arr) == nil {
		if len(arr) > 0 && has(arr[0], "policy") {
			return FileSimResults
		}
		return FileUnknown
	}
	var top map[string]json.RawMessage
	if json.Unmarshal(data, &top) != nil {
		return FileUnknown
	}
	first := func(field string) map[string]json.RawMessage {
		var elems []map[string]json.RawMessage
		if json.Unmarshal(top[field], &elems) != nil || len(elems) == 0 {
			return nil
		}
		return elems[0]
	}
	switch job := first("jobs"); {
	case has(top, "phases") && has(top, "makespan"):
		return FilePlan
	case has(first("results"), "policy") || has(first("policies"), "policy"):
		return FileSimResults
	case has(first("hosts"), "uri"):
		return FileInventory
	case has(job, "maps") || has(job, "reduces"):
		return FileSimWorkload
	case has(job, "model"):
		return FileWorkload
	}
	return FileUnknown
}

func has(m map[string]json.RawMessage, key string) bool {
	_, ok := m[key]
	return ok
}

// WrongFile returns a *WrongFileError if data is one of packer's files other
// than those in want, else nil.
func WrongFile(data []byte, want ...FileKind) error {
	got := SniffFile(data)
	if got == FileUnknown || slices.Contains(want, got) {
		return nil
	}
	return &WrongFileError{Got: got, Want: want[0]}
}
