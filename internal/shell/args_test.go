package shell

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/urfave/cli/v2"
)

// testApp has a command with subcommands, one that runs a command line,
// and flags of each kind NormalArgs tells apart.
func testApp() *cli.App {
	flags := []cli.Flag{
		&cli.StringFlag{Name: "output", Aliases: []string{"o"}},
		&cli.BoolFlag{Name: "all"},
		&cli.DurationFlag{Name: "limit", Usage: "stop after `D`"},
		&cli.Float64Flag{Name: "every", Usage: "every `SECONDS`"},
		&cli.IntFlag{Name: "n", Usage: "a count"},
	}
	return &cli.App{Name: "p", Commands: []*cli.Command{
		{Name: "group", Flags: []cli.Flag{&cli.StringFlag{Name: "g"}}, Subcommands: []*cli.Command{{Name: "leaf", Aliases: []string{"l"}, Flags: flags}}},
		{Name: "run", ArgsUsage: "-- CMD [ARGS...]", Flags: flags},
	}}
}

func TestNormalArgsMovesFlags(t *testing.T) {
	app := testApp()
	for _, c := range []struct{ in, want, cmd string }{
		{"group leaf a -o x b --all", "group leaf -o x --all a b", "leaf"},
		{"group --g v l a --n 3", "group --g v l --n 3 a", "leaf"},
		{"group leaf a --output=x -- --all b", "group leaf --output=x a -- --all b", "leaf"},
		{"group leaf - -o -", "group leaf -o - -", "leaf"},
		{"group leaf a --limit 2 --every 1m30s", "group leaf --limit 2s --every 90 a", "leaf"},
		{"group leaf --limit=2m --every=0 --n 5s", "group leaf --limit=2m --every=0 --n 5s", "leaf"},
		{"group leaf a b --help", "group leaf --help", "leaf"},
		{"group leaf a -o", "group leaf -o", "leaf"},
		{"group leaf a -o x --all", "group leaf -o x --all a", "leaf"},
		{"run -n 2 sh -n 3 --all", "run -n 2 sh -n 3 --all", "run"},
		{"run sh --all", "run sh --all", "run"},
		{"nothing -o x", "nothing -o x", ""},
		{"-o x", "-o x", ""},
	} {
		got, cmd := NormalArgs(app, append([]string{"p"}, strings.Fields(c.in)...))
		name := ""
		if cmd != nil {
			name = cmd.Name
		}
		if strings.Join(got[1:], " ") != c.want || name != c.cmd {
			t.Errorf("%s: got %q (command %q), want %q (%q)", c.in, strings.Join(got[1:], " "), name, c.want, c.cmd)
		}
	}
	leaf := app.Commands[0].Subcommands[0]
	for in, want := range map[string]string{"-o a --all -o b": "b", "--output=c": "c", "-n -o": "", "-- -o d": ""} {
		if got, _ := FlagValue(leaf, strings.Fields(in), "output"); got != want {
			t.Errorf("FlagValue(%s) = %q, want %q", in, got, want)
		}
	}
}

// TestNormalArgsRunsThrough: the normalised line parses in urfave/cli to
// the values and arguments given, whatever the order.
func TestNormalArgsRunsThrough(t *testing.T) {
	app := testApp()
	var got []string
	var limit time.Duration
	var every float64
	app.Commands[0].Subcommands[0].Action = func(c *cli.Context) error {
		got, limit, every = c.Args().Slice(), c.Duration("limit"), c.Float64("every")
		return nil
	}
	args, _ := NormalArgs(app, strings.Fields("p group leaf a --limit 90 b --every 2m"))
	if err := app.Run(args); err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, " ") != "a b" || limit != 90*time.Second || every != 120 {
		t.Errorf("args %q, limit %v, every %v", got, limit, every)
	}
}

func TestBadDuration(t *testing.T) {
	flags := testApp().Commands[1].Flags
	for in, want := range map[string]string{
		`invalid value "5x" for flag -limit: parse error`:   `--limit: "5x" is not a duration: give 90s, 5m, 1h30m, or a number of seconds`,
		`invalid value "soon" for flag -every: parse error`: `--every: "soon" is not a number of seconds: give 90, or a duration such as 90s, 5m, 1h30m`,
		`invalid value "x" for flag -n: parse error`:        "",
	} {
		err := BadDuration(flags, errors.New(in))
		if got := ""; err != nil && err.Error() != want || err == nil && want != got {
			t.Errorf("%s: %v, want %q", in, err, want)
		}
	}
}

// TestFlagHelp: one default at most, none for a switch that is off or a
// zero the usage does not explain; durations and SECONDS say their forms.
func TestFlagHelp(t *testing.T) {
	for _, c := range []struct {
		f    cli.Flag
		want string
	}{
		{&cli.IntFlag{Name: "nodes", Usage: "nodes (default: the workload's)"}, "--nodes value\tnodes (default: the workload's)"},
		{&cli.IntFlag{Name: "phase", Usage: "only phase `N`"}, "--phase N\tonly phase N"},
		{&cli.IntFlag{Name: "delay", Usage: "skips (0: none)"}, "--delay value\tskips (0: none) (default: 0)"},
		{&cli.IntFlag{Name: "waves", Value: 4, Usage: "waves"}, "--waves value\twaves (default: 4)"},
		{&cli.BoolFlag{Name: "dry-run", Usage: "change nothing"}, "--dry-run\tchange nothing"},
		{&cli.BoolFlag{Name: "barrier", Value: true, Usage: "wait"}, "--barrier\twait (default: true)"},
		{&cli.DurationFlag{Name: "limit", Value: time.Minute, Usage: "stop after `D`"}, "--limit D\tstop after D (default: 1m0s) [a duration: 90s, 5m, 1h30m, or seconds]"},
		{&cli.Float64Flag{Name: "every", Usage: "every `SECONDS` (0: never)"}, "--every SECONDS\tevery SECONDS (0: never) (default: 0) [seconds, or a duration: 90s, 5m, 1h30m]"},
	} {
		if got := FlagHelp(c.f); got != c.want {
			t.Errorf("got  %q\nwant %q", got, c.want)
		}
	}
}

// TestBareSecondsAsDurations: a duration flag's bare number is seconds in
// every form a number is written (1e3, 0.5, -0); one no duration holds
// stays as typed, so the flag's error quotes what the user gave.
func TestBareSecondsAsDurations(t *testing.T) {
	for in, want := range map[string]time.Duration{
		"90": 90 * time.Second, "1e3": 1000 * time.Second, "0.5": 500 * time.Millisecond,
		"0": 0, "2m": 2 * time.Minute, "1h30m": 90 * time.Minute,
	} {
		app := testApp()
		var limit time.Duration
		app.Commands[0].Subcommands[0].Action = func(c *cli.Context) error {
			limit = c.Duration("limit")
			return nil
		}
		args, _ := NormalArgs(app, []string{"p", "group", "leaf", "--limit", in})
		if err := app.Run(args); err != nil || limit != want {
			t.Errorf("--limit %s: %v, %v; want %v", in, limit, err, want)
		}
	}
	for _, in := range []string{"inf", "1e300", "NaN"} {
		app := testApp()
		args, _ := NormalArgs(app, []string{"p", "group", "leaf", "--limit", in})
		if args[len(args)-1] != in {
			t.Errorf("--limit %s became %q", in, args[len(args)-1])
		}
	}
}
