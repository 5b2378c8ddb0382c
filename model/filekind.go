package model

import (
	"bytes"
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
	data = bytes.TrimSpace(TrimBOM(data))
	if len(data) > 0 && data[0] == '[' {
		if has(firstElement(data), "policy") {
			return FileSimResults
		}
		return FileUnknown
	}
	var top map[string]json.RawMessage
	if json.Unmarshal(data, &top) != nil {
		return FileUnknown
	}
	switch job := firstElement(top["jobs"]); {
	case has(top, "phases") && has(top, "makespan"):
		return FilePlan
	case has(firstElement(top["results"]), "policy") || has(firstElement(top["policies"]), "policy"):
		return FileSimResults
	case has(firstElement(top["hosts"]), "uri"):
		return FileInventory
	case has(job, "maps") || has(job, "reduces"):
		return FileSimWorkload
	case has(job, "model"):
		return FileWorkload
	}
	return FileUnknown
}

// firstElement decodes the first element of the JSON array arr as an object,
// reading no further, so that sniffing a workload of many jobs costs one.
// It is nil if arr is not an array of objects or is empty.
func firstElement(arr []byte) map[string]json.RawMessage {
	dec := json.NewDecoder(bytes.NewReader(arr))
	if t, err := dec.Token(); err != nil || t != json.Delim('[') || !dec.More() {
		return nil
	}
	var m map[string]json.RawMessage
	if dec.Decode(&m) != nil {
		return nil
	}
	return m
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
