package config

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/contract"
	"github.com/ralph-tmux/ralph.tmux/watch/control"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
)

// trustKey is how trust records a config file: absolute, symlinks
// resolved, so one file is one entry however it is reached.
func trustKey(file string) (string, error) { return filepath.EvalSymlinks(file) }

// Trust records the folder's config file as it is now and says which
// commands that allows.
func Trust(w io.Writer, root, dir string) error {
	s, key, err := dirSettings(dir, false)
	if err != nil {
		return err
	}
	if err := state.Trust(root, key, s.Sum, time.Now()); err != nil {
		return control.Errorf(contract.ExitFailed, "%v", err)
	}
	if cmds := s.FromFile(); len(cmds) > 0 {
		fmt.Fprintf(w, "trusted %s: run may run %s\n", s.File, describe(cmds))
	} else {
		fmt.Fprintf(w, "trusted %s (it names no command now)\n", s.File)
	}
	return nil
}

// dirSettings reads dir's config file as run would with no flags (and,
// withEnv, the RALPH_* variables), and its trust key; a usage error when
// there is no file.
func dirSettings(dir string, withEnv bool) (Settings, string, error) {
	f, fs := NewRun()
	path := filepath.Join(dir, ".ralph", "config")
	s, err := ReadSettings(fs, &f.Config.Checks, dir, withEnv)
	if err != nil {
		return s, "", control.Errorf(contract.ExitUsage, "%s: %v", path, err)
	}
	if s.File == "" {
		return s, "", control.Errorf(contract.ExitUsage, "no config file: %s", path)
	}
	key, err := trustKey(s.File)
	if err != nil {
		return s, "", control.Errorf(contract.ExitUsage, "%v", err)
	}
	return s, key, nil
}

// Revoke forgets the folder's config file: its commands are refused again.
func Revoke(w io.Writer, root, dir string) error {
	shown, err := filepath.Abs(filepath.Join(dir, ".ralph", "config"))
	if err != nil {
		return control.Errorf(contract.ExitUsage, "%v", err)
	}
	key, err := trustKey(shown)
	if err != nil { // the file may be gone: forget the path as given
		key = shown
	}
	found, err := state.Revoke(root, key)
	if err != nil {
		return control.Errorf(contract.ExitFailed, "%v", err)
	}
	if !found {
		fmt.Fprintf(w, "%s was not trusted\n", shown)
		return nil
	}
	fmt.Fprintf(w, "revoked trust in %s: run refuses its commands again\n", shown)
	return nil
}

// ListTrusted shows each trusted file, and whether it still is as trusted.
func ListTrusted(w io.Writer, root string) error {
	list, err := state.TrustList(root)
	if err != nil {
		return control.Errorf(contract.ExitFailed, "%v", err)
	}
	for _, t := range list {
		now := "unchanged"
		if data, err := os.ReadFile(t.Path); err != nil {
			now = "missing"
		} else if state.Sum(data) != t.SHA256 {
			now = "changed since trusted: its commands are refused"
		}
		fmt.Fprintf(w, "%s  %s  trusted %s  %s\n", t.SHA256[:12], t.Path, t.Trusted, now)
	}
	return nil
}

// CheckTrusted answers for scripts: exit 0 when run would take the folder's
// config file as it is (no file, no command in it, or trusted), else exit 1
// with the commands it would run on stdout, one a line.
func CheckTrusted(w io.Writer, root, dir string) error {
	if _, err := os.Stat(filepath.Join(dir, ".ralph", "config")); errors.Is(err, os.ErrNotExist) {
		return nil // no file: nothing to trust
	}
	s, key, err := dirSettings(dir, true)
	if err != nil {
		return err
	}
	cmds := s.FromFile()
	if len(cmds) == 0 {
		return nil
	}
	if ok, err := state.IsTrusted(root, key, s.Sum); err != nil {
		return control.Errorf(contract.ExitFailed, "%v", err)
	} else if ok {
		return nil
	}
	for _, c := range cmds {
		fmt.Fprintf(w, "%s %s\n", c.Key, control.QuoteCommand(c.Command))
	}
	return control.Errorf(contract.ExitFailed, "")
}

// CheckTrust refuses to run commands a config file gives unless this user
// (whose state folder is root) trusted that file as it is now; s says what
// run read.
func CheckTrust(root string, s Settings) error {
	cmds := s.FromFile()
	if len(cmds) == 0 {
		return nil
	}
	key, err := trustKey(s.File)
	if err != nil {
		return control.Errorf(contract.ExitUsage, "%s: %v", s.File, err)
	}
	trusted, err := state.TrustedSum(root, key)
	if err != nil {
		return control.Errorf(contract.ExitFailed, "%v", err)
	}
	if trusted == s.Sum {
		return nil
	}
	changed := ""
	if trusted != "" {
		changed = " (changed since it was trusted)"
	}
	return control.Errorf(contract.ExitUsage, "%s%s would run commands: %s; trust it with: ralph-watch trust %s",
		s.File, changed, describe(cmds), QuoteWord(filepath.Dir(filepath.Dir(s.File))))
}

// CheckResumeTrust refuses a resume whose config file now gives commands the
// recorded arguments do not: those were trusted (or typed) when the loop
// started; anything the file added since needs trust like a new run.
func CheckResumeTrust(root string, st *state.State) error {
	f, fs := NewRun()
	if err := fs.Parse(st.WatcherArgs); err != nil {
		return control.Errorf(contract.ExitFailed, "recorded arguments: %v", err)
	}
	s, err := ReadSettings(fs, &f.Config.Checks, st.WatcherDir, true)
	if err != nil {
		return control.Errorf(contract.ExitUsage, "%v", err)
	}
	return CheckTrust(root, s)
}

// TrustedSettings reads RALPH_* and .ralph/config after the command line
// and refuses the config file's commands unless this user trusted it. A
// background watcher is told where its commands came from by its starter.
// A resumed watcher reads no RALPH_* variable: its arguments hold every
// setting its loop started with, and the shell resume was typed in is not
// the loop's.
func TrustedSettings(f *Run, fs *flag.FlagSet, getenv func(string) string) ([]state.CommandSource, error) {
	s, err := ReadSettings(fs, &f.Config.Checks, ".", getenv(control.ResumeEnv) != "1")
	if err != nil {
		return nil, err
	}
	if err := CheckTrust(state.Root(getenv), s); err != nil {
		return nil, err
	}
	if given := getenv(SourcesEnv); given != "" {
		_ = os.Unsetenv(SourcesEnv) // for this watcher alone, not the checks and hooks it runs
		var sources []state.CommandSource
		if json.Unmarshal([]byte(given), &sources) == nil {
			return sources, nil
		}
	}
	return s.Commands, nil
}

// describe lists commands for one line: check 'make test', on-done 'notify'.
func describe(cmds []state.CommandSource) string {
	parts := make([]string, len(cmds))
	for i, c := range cmds {
		parts[i] = c.Key + " " + control.QuoteCommand(c.Command)
	}
	return strings.Join(parts, ", ")
}

// QuoteWord is a path as one shell word, quoted only when it needs it.
func QuoteWord(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+,:@%") == "" {
		return s
	}
	return control.QuoteCommand(s)
}

// SourcesEnv carries where each command came from to the background watcher,
// which sees them all as flags.
const SourcesEnv = "RALPH_WATCH_SOURCES"

// SourcesFor is the SourcesEnv variable that tells cmds' sources.
func SourcesFor(cmds []state.CommandSource) string {
	data, _ := json.Marshal(cmds)
	return SourcesEnv + "=" + string(data)
}
