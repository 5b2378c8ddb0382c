package model

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
)

// Input files may carry fields packer does not know (other tools, the
// profiler among them, write more), so encoding/json's ignoring them is
// wanted. A misspelt known field is not wanted: "io_intesive": true would be
// dropped and the job silently lose its class. CheckFields tells the two
// apart by closeness to the object's known fields.

// ErrFieldTypo is wrapped by errors about an unknown field that is close to
// a known one.
var ErrFieldTypo = errors.New("unknown field")

// CheckFields reads the JSON object obj and refuses an unknown key close to
// one of known (see CloseField), saying which one was meant; other unknown
// keys stay allowed. at names the object in the message ("jobs[3]"). It
// returns the object's fields so that the caller can check nested objects;
// obj that is not an object gives nil and no error (the real decoder reports
// that).
func CheckFields(obj []byte, at string, known []string) (map[string]json.RawMessage, error) {
	var fields map[string]json.RawMessage
	if json.Unmarshal(obj, &fields) != nil {
		return nil, nil
	}
	return fields, CheckFieldMap(fields, at, known)
}

// CheckFieldMap is CheckFields on an object already decoded.
func CheckFieldMap(fields map[string]json.RawMessage, at string, known []string) error {
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	sort.Strings(keys) // the first typo by name, the same every run
	// A key cannot misspell a field the object also has: "notes" beside
	// "nodes" is a note.
	var absent []string
	for _, f := range known {
		if !slices.ContainsFunc(keys, func(k string) bool { return strings.EqualFold(k, f) }) {
			absent = append(absent, f)
		}
	}
	for _, k := range keys {
		if slices.ContainsFunc(known, func(f string) bool { return strings.EqualFold(k, f) }) {
			continue
		}
		if want := CloseField(k, absent); want != "" {
			prefix := ""
			if at != "" {
				prefix = at + ": "
			}
			return fmt.Errorf("%s%w %q (did you mean %q?)", prefix, ErrFieldTypo, k, want)
		}
	}
	return nil
}

// CloseField returns the known field that key, being unknown, probably
// misspells, or "" if key is known or close to none. encoding/json matches
// keys to fields case-insensitively, so a key equal to a known field but for
// case is known. A key is close to a known field when the two are the same
// after dropping '_', '-' and case ("ioIntensive", "io-intensive"), or when
// their edit distance (EditDistance) is at most a quarter of the known
// field's length and at most 2: "io_intesive" (1 from "io_intensive", 12
// letters) is close, and nothing is close to "a" or "b" but "A" and "B", so
// that short fields do not capture every short extra key. Below 6 letters a
// substituted letter often makes another word ("notes" and "nodes"), so
// there only a letter added, dropped or two letters swapped count ("nmae",
// "kinds").
func CloseField(key string, known []string) string {
	for _, f := range known {
		if strings.EqualFold(key, f) {
			return ""
		}
	}
	best, bestD := "", 3
	for _, f := range known {
		if squash(key) == squash(f) {
			return f
		}
		if d := EditDistance(key, f); d <= min(2, len(f)/4) && d < bestD && (len(f) >= 6 || !substituted(key, f)) {
			best, bestD = f, d
		}
	}
	return best
}

// NearestName is the name within a small edit distance of s (at most 2, or
// a third of its length, and less than its length, so that a suggestion
// keeps something of what was typed), or "" if none is: the hint for a
// name that is refused anyway (a command, a policy), so looser than
// CloseField, where a misspelt field is refused only because of the guess.
func NearestName(s string, names []string) string {
	best, bestD := "", min(max(2, len(s)/3)+1, len(s))
	for _, n := range names {
		if d := EditDistance(s, n); d < bestD {
			best, bestD = n, d
		}
	}
	return best
}

// substituted tells whether key differs from f by a substituted letter: the
// same length but other letters (a swap of two keeps the letters).
func substituted(key, f string) bool {
	if len(key) != len(f) {
		return false
	}
	a, b := []byte(key), []byte(f)
	slices.Sort(a)
	slices.Sort(b)
	return !slices.Equal(a, b)
}

// squash drops '_' and '-' and lowers the case.
func squash(s string) string {
	return strings.ToLower(strings.NewReplacer("_", "", "-", "").Replace(s))
}

// EditDistance is the optimal string alignment distance between a and b in
// bytes: insertions, deletions, substitutions and swaps of neighbours each
// count 1, so the common typo "nmae" is 1 from "name", not 2.
func EditDistance(a, b string) int {
	pp, prev, cur := make([]int, len(b)+1), make([]int, len(b)+1), make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			sub := prev[j-1]
			if a[i-1] != b[j-1] {
				sub++
			}
			cur[j] = min(sub, prev[j]+1, cur[j-1]+1)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], pp[j-2]+1)
			}
		}
		pp, prev, cur = prev, cur, pp
	}
	return prev[len(b)]
}

// FieldNames lists the JSON names of struct v's fields (v a struct or a
// pointer to one), embedded structs' included, for CheckFields; fields
// tagged "-" are left out.
func FieldNames(v any) []string {
	t := reflect.TypeOf(v)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	var names []string
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch {
		case name == "-":
		case f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct:
			names = append(names, FieldNames(reflect.New(f.Type).Interface())...)
		case name != "":
			names = append(names, name)
		case f.IsExported():
			names = append(names, f.Name)
		}
	}
	return names
}

// checkWorkloadFields refuses a workload file with a misspelt field at the
// top, in a job or in a job's model (CheckFields).
func checkWorkloadFields(data []byte) error {
	top, err := CheckFields(data, "", FieldNames(Workload{}))
	if err != nil {
		return err
	}
	var jobs []json.RawMessage
	if json.Unmarshal(top["jobs"], &jobs) != nil {
		return nil
	}
	jobFields, modelFields := FieldNames(Job{}), FieldNames(modelJSON{})
	for i, rj := range jobs {
		at := fmt.Sprintf("jobs[%d]", i)
		job, err := CheckFields(rj, at, jobFields)
		if err != nil {
			return err
		}
		if m, ok := job["model"]; ok {
			if _, err := CheckFields(m, at+".model", modelFields); err != nil {
				return err
			}
		}
		if r, ok := job["run"]; ok {
			if _, err := CheckFields(r, at+".run", FieldNames(RunSpec{})); err != nil {
				return err
			}
		}
	}
	return nil
}
