package shell

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"
)

// urfave/cli stops reading flags at a command's first argument, so that
// `packer workloads show W2 --format json` would be three arguments. Before
// the app runs, NormalArgs moves every flag of the command a line names in
// front of its arguments, which then reach the command's action in their
// order; "--" and all after it stay where they are. A flag's value goes
// with it, so `-w -`, `--time-limit -1s` and `--name=x` keep theirs.
//
// The same pass gives durations one spelling: a duration flag (--time-limit
// D) also takes a bare number of seconds (30 is 30s), and a flag counted in
// SECONDS (--heartbeat SECONDS) also takes a duration (5s, 2m, 1h30m).

// NormalArgs returns args (args[0] the program) with the flags of the
// command they name moved before its arguments. A command whose ArgsUsage
// starts with "--" runs a command line (profile -- CMD ARGS...): its words
// from the first argument on are that line's and stay as they are.
// With --help among the flags, or a flag that lacks its value at the end,
// the arguments are dropped: the help is the command's whatever they are,
// and the missing value is an error whatever they are. It also returns the command, nil if the
// line names none.
func NormalArgs(app *cli.App, args []string) ([]string, *cli.Command) {
	if len(args) < 2 {
		return args, nil
	}
	cmds, flags := app.Commands, app.Flags
	var cmd *cli.Command
	i := 1
	for {
		j := skipFlags(args, i, flags)
		if j >= len(args) || args[j] == "--" {
			break
		}
		next := findCommand(cmds, args[j])
		if next == nil {
			break
		}
		cmd, cmds, flags, i = next, next.Subcommands, next.Flags, j+1
	}
	if cmd == nil || cmd.Name == "help" {
		return args, cmd
	}
	commandLine := strings.HasPrefix(cmd.ArgsUsage, "--")
	var front, positional []string
	help, dangling := false, false
	for k := i; k < len(args); k++ {
		a := args[k]
		switch {
		case a == "--" || commandLine && !isFlag(a):
			return slices.Concat(args[:i], front, positional, args[k:]), cmd
		case !isFlag(a):
			positional = append(positional, a)
			continue
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		f := lookupFlag(flags, name)
		help = help || f == cli.HelpFlag
		dangling = !hasValue && takesValue(f) && k+1 == len(args)
		if hasValue || !takesValue(f) || dangling {
			if hasValue {
				a = a[:len(a)-len(value)] + normalValue(f, value)
			}
			front = append(front, a)
			continue
		}
		k++
		front = append(front, a, normalValue(f, args[k]))
	}
	if help || dangling {
		// urfave/cli reads `CMD --help WORD` as help on a subcommand WORD,
		// and a flag left without its value (`CMD a -o`) would take the
		// first argument for it: without the arguments, it says the value
		// is missing.
		positional = nil
	}
	return slices.Concat(args[:i], front, positional), cmd
}

// FlagValue is the last value args give cmd's flag name before "--", and
// whether they give one; args are NormalArgs's, the command's flags first.
func FlagValue(cmd *cli.Command, args []string, name string) (string, bool) {
	f := lookupFlag(cmd.Flags, name)
	if f == nil {
		return "", false
	}
	value, given := "", false
	for k := 0; k < len(args) && args[k] != "--"; k++ {
		if !isFlag(args[k]) {
			continue
		}
		n, v, hasValue := strings.Cut(strings.TrimLeft(args[k], "-"), "=")
		this := lookupFlag(cmd.Flags, n)
		if !hasValue && takesValue(this) && k+1 < len(args) {
			k++
			v = args[k]
		}
		if this == f {
			value, given = v, true
		}
	}
	return value, given
}

// isFlag tells a flag from an argument as Go's flag package does: "-"
// alone is an argument.
func isFlag(a string) bool { return len(a) > 1 && a[0] == '-' }

// skipFlags returns the index of the first word from i on that is not a
// flag of flags or a flag's value.
func skipFlags(args []string, i int, flags []cli.Flag) int {
	for i < len(args) && isFlag(args[i]) && args[i] != "--" {
		name, _, hasValue := strings.Cut(strings.TrimLeft(args[i], "-"), "=")
		if !hasValue && takesValue(lookupFlag(flags, name)) {
			i++
		}
		i++
	}
	return i
}

// findCommand is the command of cmds named or aliased name, or nil.
func findCommand(cmds []*cli.Command, name string) *cli.Command {
	for _, c := range cmds {
		if c.HasName(name) {
			return c
		}
	}
	return nil
}

// lookupFlag is the flag of flags named name, or nil (urfave/cli's --help
// and -h among them).
func lookupFlag(flags []cli.Flag, name string) cli.Flag {
	for _, f := range flags {
		if slices.Contains(f.Names(), name) {
			return f
		}
	}
	if name == "help" || name == "h" {
		return cli.HelpFlag
	}
	return nil
}

// takesValue tells whether f reads the next word as its value; an unknown
// flag does not (urfave/cli refuses it anyway).
func takesValue(f cli.Flag) bool {
	d, ok := f.(cli.DocGenerationFlag)
	return ok && d.TakesValue()
}

// normalValue gives a duration flag's bare number the unit s, and a
// SECONDS flag's duration its number of seconds; other values are as given.
func normalValue(f cli.Flag, v string) string {
	switch {
	case isDuration(f):
		// A number of seconds in any form ParseFloat reads (1e3 included),
		// as a duration; one no duration holds (inf, 1e300) stays as typed,
		// for the flag's error to quote.
		if sec, err := strconv.ParseFloat(v, 64); err == nil && math.Abs(sec) <= maxDurationSeconds {
			return time.Duration(math.Round(sec * 1e9)).String()
		}
	case isSeconds(f):
		if d, err := time.ParseDuration(v); err == nil {
			if _, err := strconv.ParseFloat(v, 64); err != nil { // not "0"
				return strconv.FormatFloat(d.Seconds(), 'g', -1, 64)
			}
		}
	}
	return v
}

// maxDurationSeconds is about the longest time.Duration, in seconds.
const maxDurationSeconds = float64(math.MaxInt64/int64(time.Second)) - 1

// isDuration tells a flag read as a Go duration.
func isDuration(f cli.Flag) bool {
	_, ok := f.(*cli.DurationFlag)
	return ok
}

// isSeconds tells a number flag whose value is counted in seconds: its
// placeholder is SECONDS (--heartbeat, --from, --tyrex-timer).
func isSeconds(f cli.Flag) bool {
	d, ok := f.(cli.DocGenerationFlag)
	return ok && !isDuration(f) && placeholder(d.GetUsage()) == "SECONDS"
}

// placeholder is the `NAME` a flag's usage marks as its value's name, or "".
func placeholder(usage string) string {
	_, rest, ok := strings.Cut(usage, "`")
	if !ok {
		return ""
	}
	name, _, ok := strings.Cut(rest, "`")
	if !ok {
		return ""
	}
	return name
}

// invalidValue matches the flag package's refusal of a value.
var invalidValue = regexp.MustCompile(`^invalid value "(.*)" for flag -([^:]+): `)

// BadDuration rephrases the flag package's refusal of a duration's or a
// SECONDS flag's value ("parse error") as one line that says what the flag
// takes; other errors give nil.
func BadDuration(flags []cli.Flag, err error) error {
	m := invalidValue.FindStringSubmatch(err.Error())
	if m == nil {
		return nil
	}
	switch f := lookupFlag(flags, m[2]); {
	case isDuration(f):
		return fmt.Errorf("--%s: %q is not a duration: give 90s, 5m, 1h30m, or a number of seconds", m[2], m[1])
	case isSeconds(f):
		return fmt.Errorf("--%s: %q is not a number of seconds: give 90, or a duration such as 90s, 5m, 1h30m", m[2], m[1])
	}
	return nil
}
