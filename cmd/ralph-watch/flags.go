package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/peterbourgon/ff/v3"

	"github.com/ralph-tmux/ralph.tmux/watch/between"
	"github.com/ralph-tmux/ralph.tmux/watch/plan"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
)

// durationFlag accepts Go durations (90s, 3m) and bare integers as seconds.
type durationFlag struct{ d *time.Duration }

func (f durationFlag) String() string {
	if f.d == nil || *f.d < 0 { // negative: not given, someone else's default applies
		return ""
	}
	return shortDuration(*f.d)
}

// shortDuration is how help and the man page write a duration: 180s, 30m,
// 500ms.
func shortDuration(d time.Duration) string {
	switch {
	case d == 0:
		return "0s"
	case d%time.Hour == 0:
		return fmt.Sprintf("%dh", d/time.Hour)
	case d%time.Minute == 0 && d >= 10*time.Minute:
		return fmt.Sprintf("%dm", d/time.Minute)
	case d%time.Second == 0:
		return fmt.Sprintf("%ds", d/time.Second)
	}
	return d.String()
}

func (f durationFlag) Set(s string) error {
	d, err := parseDuration(s)
	if err != nil {
		return err
	}
	*f.d = d
	return nil
}

func parseDuration(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		if n < 0 {
			return 0, fmt.Errorf("negative duration %q", s)
		}
		if n > int64(1<<62/time.Second) {
			return 0, fmt.Errorf("duration %q is too long", s)
		}
		return time.Duration(n) * time.Second, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("invalid duration %q (use 90s, 3m or a number of seconds)", s)
	}
	if d < 0 {
		return 0, fmt.Errorf("negative duration %q", s)
	}
	return d, nil
}

// checkFlag adds a check for every --check; checkHintFlag gives the check
// just before it its hint. Both fill one list, so order keeps them paired.
type checkFlag struct{ checks *[]between.Check }

func (f checkFlag) String() string { return "" }

func (f checkFlag) Set(s string) error {
	if strings.TrimSpace(s) == "" {
		return errors.New("empty check command")
	}
	*f.checks = append(*f.checks, between.Check{Command: s})
	return nil
}

type checkHintFlag struct{ checks *[]between.Check }

func (f checkHintFlag) String() string { return "" }

func (f checkHintFlag) Set(s string) error {
	n := len(*f.checks)
	if n == 0 || (*f.checks)[n-1].Hint != "" {
		return errors.New("a hint must follow the --check it explains")
	}
	(*f.checks)[n-1].Hint = s
	return nil
}

// commandFlag marks a flag whose value is a command run with sh -c. This
// is the one list of command keys: a config file's value for any of them
// runs only once the person trusted that file (ralph-watch trust).
type commandFlag interface{ runsCommand() }

func (checkFlag) runsCommand() {}

// runsCommand reports whether a flag's value is a command.
func runsCommand(fl *flag.Flag) bool {
	_, ok := fl.Value.(commandFlag)
	return ok
}

// commandString is a string flag that names a command (a hook).
type commandString struct{ s *string }

func (f commandString) String() string {
	if f.s == nil {
		return ""
	}
	return *f.s
}

func (f commandString) Set(v string) error { *f.s = v; return nil }

func (commandString) runsCommand() {}

// configParser reads .ralph/config as ff's plain parser does, keeping each
// check-hint line with the file's own check line before it: when the command
// line or the environment gave the checks, the file's checks are skipped and
// so are their hints. A key is read as ff matches it (a flag name, or its
// RALPH_ variable's name) and passed on by the flag's own name, so a command
// key has one spelling to check. Sum gets the SHA-256 of the bytes parsed.
func configParser(fs *flag.FlagSet, checks *[]between.Check, sum *string) ff.ConfigFileParser {
	return func(r io.Reader, set func(name, value string) error) error {
		data, err := io.ReadAll(r)
		if err != nil {
			return fmt.Errorf("config file: %w", err)
		}
		*sum = state.Sum(data)
		seen, skipped := false, false
		return ff.PlainParser(bytes.NewReader(data), func(name, value string) error {
			if fl := configKey(fs, name); fl != nil {
				name = fl.Name
			}
			switch name {
			case "check":
				before := len(*checks)
				if err := set(name, value); err != nil {
					return err
				}
				seen, skipped = true, len(*checks) == before
				return nil
			case "check-hint":
				if !seen {
					return errors.New("config file: a check-hint line must follow the check line it explains")
				}
				if skipped {
					return nil
				}
			}
			return set(name, value)
		})
	}
}

// configKey is the flag a config file's key sets, as ff finds it: by name,
// else by its environment variable's name (RALPH_ON_DONE); nil if none.
func configKey(fs *flag.FlagSet, key string) *flag.Flag {
	if fl := fs.Lookup(key); fl != nil {
		return fl
	}
	var found *flag.Flag
	fs.VisitAll(func(fl *flag.Flag) {
		if envName(fl.Name) == key {
			found = fl
		}
	})
	return found
}

// envName is the RALPH_ variable ff reads for a flag.
func envName(flagName string) string {
	return "RALPH_" + strings.NewReplacer("-", "_", ".", "_", "/", "_").Replace(strings.ToUpper(flagName))
}

// settings are where run's values came from beyond its command line.
type settings struct {
	file     string                // the config file read (absolute), "" if there was none
	sum      string                // the SHA-256 of its bytes
	commands []state.CommandSource // each command to run, and where it came from
}

// fromFile are the commands the config file gives: they need its trust.
func (s settings) fromFile() []state.CommandSource {
	var cmds []state.CommandSource
	for _, c := range s.commands {
		if c.From == state.FromConfig {
			cmds = append(cmds, c)
		}
	}
	return cmds
}

// readSettings fills fs, whose command line is parsed, as ff orders them:
// RALPH_* variables (withEnv), then dir's .ralph/config, for what is still
// unset. It records where each command came from.
func readSettings(fs *flag.FlagSet, checks *[]between.Check, dir string, withEnv bool) (settings, error) {
	var s settings
	byFlag := visited(fs)
	if withEnv {
		if err := ff.Parse(fs, nil, ff.WithEnvVarPrefix("RALPH")); err != nil {
			return s, err
		}
	}
	given := visited(fs)
	path, err := filepath.Abs(filepath.Join(dir, ".ralph", "config"))
	if err != nil {
		return s, err
	}
	err = ff.Parse(fs, nil, ff.WithConfigFile(path), ff.WithAllowMissingConfigFile(true),
		ff.WithConfigFileParser(configParser(fs, checks, &s.sum)))
	if err != nil {
		return s, err
	}
	if s.sum != "" {
		s.file = path
	}
	fromFile := visited(fs)
	fs.VisitAll(func(fl *flag.Flag) {
		if !runsCommand(fl) || !fromFile[fl.Name] {
			return
		}
		src := state.CommandSource{Key: fl.Name, From: state.FromConfig, File: s.file}
		switch {
		case byFlag[fl.Name]:
			src.From, src.File = state.FromFlag, ""
		case given[fl.Name]:
			src.From, src.File = state.FromEnv, ""
		}
		values := []string{fl.Value.String()}
		if fl.Name == "check" {
			values = nil
			for _, c := range *checks {
				values = append(values, c.Command)
			}
		}
		for _, v := range values {
			if strings.TrimSpace(v) != "" {
				src.Command = v
				s.commands = append(s.commands, src)
			}
		}
	})
	if fromFile["tasks"] && !given["tasks"] {
		s.planCommands(fs.Lookup("tasks").Value.String(), dir)
	}
	return s, nil
}

// planCommands adds the verifyCommands of the plan the config file names:
// they run as checks, so they need the file's trust too, and what is
// trusted covers them (their text joins the file's sum).
func (s *settings) planCommands(path, dir string) {
	if !filepath.IsAbs(path) {
		path = filepath.Join(dir, path)
	}
	p, _, err := plan.Load(path)
	if err != nil || len(p.VerifyCommands) == 0 {
		return // a plan that cannot be read is refused later, with why
	}
	sum := sha256.New()
	sum.Write([]byte(s.sum))
	for _, c := range p.VerifyCommands {
		s.commands = append(s.commands, state.CommandSource{Key: "verifyCommands", Command: c, From: state.FromConfig, File: s.file})
		sum.Write([]byte("\x00" + c))
	}
	s.sum = hex.EncodeToString(sum.Sum(nil))
}

// visited are the flags set so far.
func visited(fs *flag.FlagSet) map[string]bool {
	set := map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
	return set
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
