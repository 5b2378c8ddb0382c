package xenlibvirt

import (
	"bytes"
	"math"
	"strconv"
	"strings"
)

// JobStatus is how a job's command ended in one VM, as the guest reported
// it on its console: the line "packer-status: exit N seconds S" that
// packer-job.sh prints when the command has ended (before it powers off).
type JobStatus struct {
	// Exit is the command's exit status, 0 to 255.
	Exit int
	// Seconds is the command's wall time in the guest, from its start to
	// its end (the guest's uptime clock), without boot and power-off.
	Seconds float64
}

// maxStatusSeconds bounds a reported time: a year. Anything beyond is not a
// status line packer wrote.
const maxStatusSeconds = 365 * 24 * 3600

// ParseStatus finds the last status line in a console transcript. A line
// counts when StatusPrefix starts it or follows other output on it (a
// kernel message may have left no newline), and the rest is exactly "exit
// N seconds S" with 0 ≤ N ≤ 255 and 0 ≤ S ≤ a year; anything else, and a
// transcript with no such line, gives ok false. Carriage returns (a serial
// console's line ends) are ignored.
func ParseStatus(console []byte) (st JobStatus, ok bool) {
	for len(console) > 0 {
		i := bytes.LastIndex(console, []byte(StatusPrefix))
		if i < 0 {
			return JobStatus{}, false
		}
		line := console[i+len(StatusPrefix):]
		if nl := bytes.IndexByte(line, '\n'); nl >= 0 {
			line = line[:nl]
		}
		if st, ok := parseStatusWords(string(line)); ok {
			return st, true
		}
		console = console[:i]
	}
	return JobStatus{}, false
}

func parseStatusWords(s string) (JobStatus, bool) {
	f := strings.Fields(strings.ReplaceAll(s, "\r", " "))
	if len(f) != 4 || f[0] != "exit" || f[2] != "seconds" {
		return JobStatus{}, false
	}
	exit, err := strconv.Atoi(f[1])
	if err != nil || exit < 0 || exit > 255 || f[1] != strconv.Itoa(exit) {
		return JobStatus{}, false
	}
	secs, err := strconv.ParseFloat(f[3], 64)
	if err != nil || math.IsNaN(secs) || secs < 0 || secs > maxStatusSeconds {
		return JobStatus{}, false
	}
	return JobStatus{Exit: exit, Seconds: secs}, true
}
