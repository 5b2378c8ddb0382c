package shell

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/urfave/cli/v2"
)

// urfaveFlagString is urfave/cli's own rendering of a flag in help.
var urfaveFlagString = cli.FlagStringer

// FlagHelp renders a flag in help with one default at most: urfave/cli
// appends "(default: V)" to every flag, which doubles a default the usage
// already states ("(default: the workload's, or 2) (default: 0)"), shows
// "(default: false)" on every switch, and "(default: 0)" where 0 means "not
// given" (--phase N counts from 1). So its default is left out when the
// usage says "(default", when the flag is a switch that is off, and when it
// is a zero whose meaning the usage does not give ("0: no limit"). A
// duration, or a number of SECONDS, says which forms it takes.
func FlagHelp(f cli.Flag) string {
	s := urfaveFlagString(f)
	d, ok := f.(cli.DocGenerationFlag)
	if !ok || len(d.GetEnvVars()) > 0 {
		return s
	}
	usage := d.GetUsage()
	if def := d.GetDefaultText(); def != "" {
		suffix := fmt.Sprintf(" (default: %s)", def)
		if strings.HasSuffix(s, suffix) && !showDefault(f, usage, def) {
			s = strings.TrimSuffix(s, suffix)
		}
	}
	switch {
	case isDuration(f):
		s += " [a duration: 90s, 5m, 1h30m, or seconds]"
	case isSeconds(f):
		s += " [seconds, or a duration: 90s, 5m, 1h30m]"
	}
	return s
}

// zeroExplained finds a usage that says what 0 means: "(0: no limit)".
var zeroExplained = regexp.MustCompile(`(^|[^0-9.])0:`)

// showDefault tells whether a flag's help shows urfave/cli's default def.
func showDefault(f cli.Flag, usage, def string) bool {
	if strings.Contains(usage, "(default") {
		return false
	}
	if _, ok := f.(*cli.BoolFlag); ok {
		return def != "false"
	}
	switch def {
	case "0", "0s", `""`:
		return zeroExplained.MatchString(usage)
	}
	return true
}
