// Package config is run's flags and the .ralph/config file that may give
// them too: the flag values (durations, sizes, checks, commands), the file's
// parser, where each command came from, and the trust a file's commands need.
package config

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/peterbourgon/ff/v3"

	"github.com/ralph-tmux/ralph.tmux/watch/checks"
	"github.com/ralph-tmux/ralph.tmux/watch/plan"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
)

// configParser reads .ralph/config as ff's plain parser does, keeping each
// check-hint line with the file's own check line before it: when the command
// line or the environment gave the checks, the file's checks are skipped and
// so are their hints. A key is read as ff matches it (a flag name, or its
// RALPH_ variable's name) and passed on by the flag's own name, so a command
// key has one spelling to check. Sum gets the SHA-256 of the bytes parsed.
func configParser(fs *flag.FlagSet, list *[]checks.Check, sum *string) ff.ConfigFileParser {
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
				before := len(*list)
				if err := set(name, value); err != nil {
					return err
				}
				seen, skipped = true, len(*list) == before
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

// Settings are where run's values came from beyond its command line.
type Settings struct {
	File     string                // the config file read (absolute), "" if there was none
	Sum      string                // the SHA-256 of its bytes
	Commands []state.CommandSource // each command to run, and where it came from
}

// FromFile are the commands the config file gives: they need its trust.
func (s Settings) FromFile() []state.CommandSource {
	var cmds []state.CommandSource
	for _, c := range s.Commands {
		if c.From == state.FromConfig {
			cmds = append(cmds, c)
		}
	}
	return cmds
}

// ReadSettings fills fs, whose command line is parsed, as ff orders them:
// RALPH_* variables (withEnv), then dir's .ralph/config, for what is still
// unset. It records where each command came from.
func ReadSettings(fs *flag.FlagSet, list *[]checks.Check, dir string, withEnv bool) (Settings, error) {
	var s Settings
	byFlag := Visited(fs)
	if withEnv {
		if err := ff.Parse(fs, nil, ff.WithEnvVarPrefix("RALPH")); err != nil {
			return s, err
		}
	}
	given := Visited(fs)
	path, err := filepath.Abs(filepath.Join(dir, ".ralph", "config"))
	if err != nil {
		return s, err
	}
	err = ff.Parse(fs, nil, ff.WithConfigFile(path), ff.WithAllowMissingConfigFile(true),
		ff.WithConfigFileParser(configParser(fs, list, &s.Sum)))
	if err != nil {
		return s, err
	}
	if s.Sum != "" {
		s.File = path
	}
	fromFile := Visited(fs)
	fs.VisitAll(func(fl *flag.Flag) {
		if !RunsCommand(fl) || !fromFile[fl.Name] {
			return
		}
		src := state.CommandSource{Key: fl.Name, From: state.FromConfig, File: s.File}
		switch {
		case byFlag[fl.Name]:
			src.From, src.File = state.FromFlag, ""
		case given[fl.Name]:
			src.From, src.File = state.FromEnv, ""
		}
		values := []string{fl.Value.String()}
		if fl.Name == "check" {
			values = nil
			for _, c := range *list {
				values = append(values, c.Command)
			}
		}
		for _, v := range values {
			if strings.TrimSpace(v) != "" {
				src.Command = v
				s.Commands = append(s.Commands, src)
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
func (s *Settings) planCommands(path, dir string) {
	if !filepath.IsAbs(path) {
		path = filepath.Join(dir, path)
	}
	p, _, err := plan.Load(path)
	if err != nil || len(p.VerifyCommands) == 0 {
		return // a plan that cannot be read is refused later, with why
	}
	sum := sha256.New()
	sum.Write([]byte(s.Sum))
	for _, c := range p.VerifyCommands {
		s.Commands = append(s.Commands, state.CommandSource{Key: "verifyCommands", Command: c, From: state.FromConfig, File: s.File})
		sum.Write([]byte("\x00" + c))
	}
	s.Sum = hex.EncodeToString(sum.Sum(nil))
}

// Visited are the flags set so far.
func Visited(fs *flag.FlagSet) map[string]bool {
	set := map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
	return set
}
