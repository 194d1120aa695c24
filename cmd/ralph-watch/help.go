package main

import (
	"flag"
	"fmt"
	"regexp"
	"strings"
	"text/tabwriter"

	"github.com/peterbourgon/ff/v3/ffcli"

	"github.com/ralph-tmux/ralph.tmux/watch/config"
)

// usage is a command's -h text: usage line, long help with examples,
// subcommands, and flags spelt as they are typed (--name VALUE).
func usage(c *ffcli.Command) string {
	var b strings.Builder
	fmt.Fprintf(&b, "USAGE\n  %s\n\n", c.ShortUsage)
	if c.LongHelp != "" {
		fmt.Fprintf(&b, "%s\n\n", c.LongHelp)
	} else if c.ShortHelp != "" {
		fmt.Fprintf(&b, "%s\n\n", c.ShortHelp)
	}
	if len(c.Subcommands) > 0 {
		b.WriteString("SUBCOMMANDS\n")
		tw := tabwriter.NewWriter(&b, 0, 2, 2, ' ', 0)
		for _, s := range c.Subcommands {
			fmt.Fprintf(tw, "  %s\t%s\n", s.Name, s.ShortHelp)
		}
		tw.Flush()
		b.WriteString("\n")
	}
	if c.FlagSet != nil && hasFlags(c.FlagSet) {
		b.WriteString("FLAGS\n")
		tw := tabwriter.NewWriter(&b, 0, 2, 2, ' ', 0)
		c.FlagSet.VisitAll(func(f *flag.Flag) {
			fmt.Fprintf(tw, "  %s\t%s\n", flagSpelling(f), flagHelp(f))
		})
		tw.Flush()
		b.WriteString("\n")
	}
	return b.String()
}

func hasFlags(fs *flag.FlagSet) bool {
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	return n > 0
}

// dashes is how a flag is written: -t, --target.
func dashes(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// flagSpelling is a flag as typed, with a word for its value: --lines int.
func flagSpelling(f *flag.Flag) string {
	if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
		return dashes(f.Name)
	}
	kind, _ := flag.UnquoteUsage(f)
	if _, ok := f.Value.(config.Duration); ok {
		kind = "duration"
	}
	if config.RunsCommand(f) {
		kind = "command"
	}
	return dashes(f.Name) + " " + kind
}

// flagHelp is the flag's usage with its default, unless it says it already.
func flagHelp(f *flag.Flag) string {
	_, help := flag.UnquoteUsage(f)
	if isZeroDefault(f.DefValue) || strings.Contains(help, "(default") {
		return help
	}
	return fmt.Sprintf("%s (default %s)", help, f.DefValue)
}

func isZeroDefault(v string) bool {
	switch v {
	case "", "0", "false", "0s":
		return true
	}
	return false
}

// goFlagError finds the flag name in the flag package's errors, which spell
// it with one dash (-inactivity-timeout) whatever was typed.
var goFlagError = regexp.MustCompile(`^(flag provided but not defined: |flag needs an argument: |invalid (?:boolean )?value "(?:[^"\\]|\\.)*" for (?:flag )?)-([^\s:]+)`)

// dashFlags spells the flag in a parse error as it is typed: --name, -t.
func dashFlags(msg string) string {
	m := goFlagError.FindStringSubmatchIndex(msg)
	if m == nil {
		return msg
	}
	return msg[:m[2]] + msg[m[2]:m[3]] + dashes(msg[m[4]:m[5]]) + msg[m[5]:]
}
