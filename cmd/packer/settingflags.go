package main

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/urfave/cli/v2"

	"github.com/packer-sched/packer/model"
	"github.com/packer-sched/packer/optimize"
	"github.com/packer-sched/packer/sim"
)

// The rules a setting's value must keep are the library's: model.Cluster,
// sim.Settings, sim.PolicyOptions and optimize.Settings return a typed error
// naming the field, and settingUsage names the flag that set it instead. A flag is
// the field's name in kebab case (TimeLimit: --time-limit) unless
// fieldFlags says otherwise.

// fieldFlags are the library fields whose flag is not named after them; nil
// is a field no flag sets as it is (--max-memory is in MiB, MaxMemory in
// bytes).
var fieldFlags = map[string]cli.Flag{
	"ReduceSlowstart":  slowstartFlag,
	"MaxMemory":        nil,
	"DisksPerHost":     disksFlag,
	"ExtraRatio":       ratioFlag,
	"CoresPerHost":     coresFlag,
	"MemoryMiBPerHost": memoryFlag,
}

// fieldFlag is the flag of c's command that sets a library field, or "".
func fieldFlag(c *cli.Context, field string) string {
	name := kebab(field)
	if f, ok := fieldFlags[field]; ok {
		if f == nil {
			return ""
		}
		name = f.Names()[0]
	}
	for _, f := range c.Command.Flags {
		if slices.Contains(f.Names(), name) {
			return name
		}
	}
	return ""
}

// kebab is a Go field name in kebab case: TimeLimit is time-limit,
// HybSLevels hyb-s-levels.
func kebab(field string) string {
	var b strings.Builder
	r := []rune(field)
	for i, c := range r {
		if i > 0 && unicode.IsUpper(c) && (unicode.IsLower(r[i-1]) || i+1 < len(r) && unicode.IsLower(r[i+1])) {
			b.WriteByte('-')
		}
		b.WriteRune(unicode.ToLower(c))
	}
	return b.String()
}

// settingUsage turns a library's error about one of its settings into a
// usage error naming the flag that set the field, in one line:
// "--time-limit must not be negative (0: no limit), got -1s". A setting no
// flag sets is bad input in the library's words; any other error is
// returned as it is.
func settingUsage(c *cli.Context, err error) error {
	var field, key, rule string
	var value any
	var se *sim.SettingError
	var oe *optimize.SettingError
	var me *model.SettingError
	switch {
	case errors.As(err, &me):
		field, value, rule = me.Field, me.Value, me.Rule
	case errors.As(err, &se):
		field, key, value, rule = se.Field, se.Key, se.Value, se.Rule
	case errors.As(err, &oe):
		field, value, rule = oe.Field, oe.Value, oe.Rule
	default:
		return err
	}
	name := fieldFlag(c, field)
	switch {
	case name == "":
		return badInput(err)
	case key != "":
		return badUsage("--%s: %q %s, got %v", name, key, rule, value)
	}
	return badUsage("--%s %s, got %v", name, rule, value)
}

// zeroIsDefault marks a flag whose library field reads 0 as "the default"
// (sim.Settings.RackFactor, sim.PolicyOptions.TyrexTimer): the flag shows that
// default, and an explicit 0 would silently run with it, so checkZero
// refuses it.
func zeroIsDefault[F cli.Flag](f F) F {
	zeroMeansDefault[f] = true
	return f
}

// zeroMeansDefault are the flags marked by zeroIsDefault.
var zeroMeansDefault = map[cli.Flag]bool{}

// checkZero refuses an explicit 0 for a flag of c's command marked by
// zeroIsDefault.
func checkZero(c *cli.Context) error {
	for _, f := range c.Command.Flags {
		name := f.Names()[0]
		if !zeroMeansDefault[f] || !c.IsSet(name) || !isZero(c.Value(name)) {
			continue
		}
		def := ""
		if d, ok := f.(cli.DocGenerationFlag); ok {
			def = fmt.Sprintf(" (leave it out for the default, %s)", d.GetDefaultText())
		}
		return badUsage("--%s must not be 0%s, got 0", name, def)
	}
	return nil
}

// isZero reports whether a flag's value is a numeric zero (-0 too).
func isZero(v any) bool {
	switch v := v.(type) {
	case float64:
		return v == 0
	case int:
		return v == 0
	case int64:
		return v == 0
	}
	return false
}
