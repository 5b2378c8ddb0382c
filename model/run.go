package model

import (
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"
)

// RunSpec says what a job's VMs run when packer apply deploys the job: the
// command of its master (VM 0) and of its other VMs, their environment and,
// optionally, an appliance image of its own. In a workload file:
//
//	"run": {"master": "sum-server {vms}", "workers": "send {master} 7000",
//	        "env": {"PORT": "7000"}, "image": "/var/lib/libvirt/images/hadoop.qcow2"}
//
// A job without one keeps the appliance's own contract: the image knows what
// to run and powers off when done.
type RunSpec struct {
	// Command runs on every VM of the job that Master or Workers does not
	// cover.
	Command string `json:"command,omitempty"`
	// Master runs on VM 0, the job's Hadoop master (the packing paper's
	// section 2); Workers on VMs 1..n−1.
	Master  string `json:"master,omitempty"`
	Workers string `json:"workers,omitempty"`
	// Env is exported to the command; its values take the same template
	// words as the commands.
	Env map[string]string `json:"env,omitempty"`
	// Image is the job's own appliance image (an absolute path in a storage
	// pool on every host), in place of the inventory's.
	Image string `json:"image,omitempty"`
}

// RunWords are the template words a run spec's commands and environment
// values may use, written {word}; apply replaces each with the VM's value:
//
//	{job}        the job's name as its host names carry it (lower case, [a-z0-9-])
//	{index}      the VM's index in the job, 0 for the master
//	{vms}        how many VMs the job has ({nodes} too, as packer profile says)
//	{hostname}   the VM's host name, <job>-<index>
//	{master}     the master's host name, <job>-0
//	{hosts}      every host name of the job, master first, separated by spaces
//	{ip}         the VM's address ("" when the inventory gives no subnet)
//	{master_ip}  the master's address (likewise)
//	{role}       the job's role in the phase: primary, host or extra
//	{phase}      the phase's number, from 1
//	{plan}       the plan's id
//
// "${word}" is the shell's and left alone, as is any other brace: awk's
// {print} and sed's {p} reach the guest as written. Only a word close to a
// known one ({mastr}, {jobb}, {host}) is an error, so that a typo does
// not reach the guest (nearRunWord); {{word}} writes {word} itself.
var RunWords = []string{"job", "index", "vms", "nodes", "hostname", "master", "hosts", "ip", "master_ip", "role", "phase", "plan"}

// CommandFor returns the command VM index of the job runs ("" for none).
func (r *RunSpec) CommandFor(index int) string {
	switch {
	case index == 0 && r.Master != "":
		return r.Master
	case index > 0 && r.Workers != "":
		return r.Workers
	}
	return r.Command
}

// Validate checks that every VM of the job has a command, that the template
// words are known, the environment's names are shell variables of the
// user's (not PACKER_*, which apply sets) and the image path is absolute.
func (r *RunSpec) Validate() error {
	if r.Command == "" && r.Master == "" && r.Workers == "" {
		return fmt.Errorf("run: give command, or master and workers (master alone for a job of one VM)")
	}
	for _, f := range []struct{ field, s string }{{"command", r.Command}, {"master", r.Master}, {"workers", r.Workers}} {
		if _, err := ExpandRunWords(f.s, nil); err != nil {
			return fmt.Errorf("run.%s: %w", f.field, err)
		}
		if strings.ContainsRune(f.s, 0) {
			return fmt.Errorf("run.%s: contains a NUL byte", f.field)
		}
	}
	names := make([]string, 0, len(r.Env))
	for k := range r.Env {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		if !shellName(k) {
			return fmt.Errorf("run.env: %q is not a shell variable name ([A-Za-z_][A-Za-z0-9_]*)", k)
		}
		if strings.HasPrefix(k, "PACKER_") {
			return fmt.Errorf("run.env: %q: PACKER_* variables are set by packer apply", k)
		}
		if _, err := ExpandRunWords(r.Env[k], nil); err != nil {
			return fmt.Errorf("run.env.%s: %w", k, err)
		}
		if strings.ContainsRune(r.Env[k], 0) {
			return fmt.Errorf("run.env.%s: contains a NUL byte", k)
		}
	}
	if r.Image != "" && (!path.IsAbs(r.Image) || strings.ContainsAny(r.Image, "\n\t")) {
		return fmt.Errorf("run.image: %q is not an absolute path", r.Image)
	}
	return nil
}

func shellName(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		if !(c == '_' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// ExpandRunWords replaces every {word} of RunWords in s with words[word]
// (see RunWords for what is left alone). With words nil it only checks s:
// the result is then s with the known words removed.
func ExpandRunWords(s string, words map[string]string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(s); {
		c := s[i]
		if c != '{' || i > 0 && s[i-1] == '$' {
			b.WriteByte(c)
			i++
			continue
		}
		if w, ok := escapedWord(s[i:]); ok {
			b.WriteString("{" + w + "}")
			i += len(w) + 4
			continue
		}
		end := strings.IndexByte(s[i+1:], '}')
		if end < 0 {
			b.WriteString(s[i:])
			break
		}
		word := s[i+1 : i+1+end]
		if !lowerWord(word) {
			b.WriteByte(c)
			i++
			continue
		}
		if !slices.Contains(RunWords, word) {
			if near := nearRunWord(word); near != "" {
				return "", fmt.Errorf("unknown template word {%s} (did you mean {%s}? {{%s}} writes it as it is)", word, near, word)
			}
			b.WriteString(s[i : i+end+2]) // the shell's or awk's own
			i += end + 2
			continue
		}
		if word == "nodes" {
			word = "vms"
		}
		b.WriteString(words[word])
		i += end + 2
	}
	return b.String(), nil
}

// nearRunWord returns the run word that word, being unknown, probably
// misspells: one edit away for a word of 3 letters or more, two for 6 or
// more; "" if none is. Shorter words are left to the shell: sed's {p} is
// one edit from {ip}.
func nearRunWord(word string) string {
	for _, w := range RunWords {
		d := EditDistance(word, w)
		if len(word) >= 3 && d <= 1 || len(word) >= 6 && d <= 2 {
			return w
		}
	}
	return ""
}

// escapedWord reports whether s starts with {{word}} for a lower-case word,
// and the word.
func escapedWord(s string) (string, bool) {
	if !strings.HasPrefix(s, "{{") {
		return "", false
	}
	end := strings.Index(s, "}}")
	if end < 0 || !lowerWord(s[2:end]) {
		return "", false
	}
	return s[2:end], true
}

// lowerWord reports whether s is a lower-case word: [a-z][a-z_]*.
func lowerWord(s string) bool {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return false
	}
	for _, c := range s {
		if c != '_' && (c < 'a' || c > 'z') {
			return false
		}
	}
	return true
}
