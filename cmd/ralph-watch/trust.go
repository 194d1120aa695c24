package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/peterbourgon/ff/v3/ffcli"

	"github.com/ralph-tmux/ralph.tmux/watch/config"
	"github.com/ralph-tmux/ralph.tmux/watch/control"
	"github.com/ralph-tmux/ralph.tmux/watch/words"

	"github.com/ralph-tmux/ralph.tmux/watch/state"
)

func trustCommand(e env) *ffcli.Command {
	fs := flag.NewFlagSet("trust", flag.ContinueOnError)
	revoke := fs.Bool("revoke", false, "forget the folder's config file: its commands are refused again")
	list := fs.Bool("list", false, "list the trusted config files and whether each is unchanged")
	check := fs.Bool("check", false, "exit 0 if run would use the folder's config file as it is, else 1 and print the commands it would run, one a line")
	return &ffcli.Command{
		Name:       "trust",
		ShortUsage: "ralph-watch trust [--revoke | --list | --check] [DIR]",
		ShortHelp:  "allow DIR/.ralph/config to run its commands (checks, hooks)",
		LongHelp: strings.TrimSpace(`
A project's .ralph/config may name commands: check, on-iteration-end, on-done,
on-fail, end-command. run uses them only when this user trusted that file as
it is, byte for byte: an edit needs trust again. Other values (timeouts,
patterns, limits) need no trust, nor do the same values given as flags or
RALPH_* variables. DIR defaults to the current folder.

Examples:
  ralph-watch trust             trust ./.ralph/config as it is now
  ralph-watch trust --revoke ~/src/proj
  ralph-watch trust --list`),
		FlagSet: fs,
		Exec: func(ctx context.Context, args []string) error {
			root := state.Root(e.Getenv)
			if *list {
				if len(args) > 0 || *revoke || *check {
					return control.Errorf(words.ExitUsage, "--list takes no folder nor other flag")
				}
				return listTrusted(e.Stdout, root)
			}
			if *revoke && *check {
				return control.Errorf(words.ExitUsage, "give --revoke or --check, not both")
			}
			if len(args) > 1 {
				return control.Errorf(words.ExitUsage, "trust takes one folder, got %d: %s", len(args), strings.Join(args, " "))
			}
			dir := "."
			if len(args) == 1 {
				dir = args[0]
			}
			switch {
			case *revoke:
				return revokeTrust(e.Stdout, root, dir)
			case *check:
				return checkTrusted(e.Stdout, root, dir)
			}
			return trustDir(e.Stdout, root, dir)
		},
	}
}

// trustKey is how trust records a config file: absolute, symlinks
// resolved, so one file is one entry however it is reached.
func trustKey(file string) (string, error) { return filepath.EvalSymlinks(file) }

// trustDir records the folder's config file as it is now and says which
// commands that allows.
func trustDir(w io.Writer, root, dir string) error {
	s, key, err := dirSettings(dir, false)
	if err != nil {
		return err
	}
	if err := state.Trust(root, key, s.Sum, time.Now()); err != nil {
		return control.Errorf(words.ExitFailed, "%v", err)
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
func dirSettings(dir string, withEnv bool) (config.Settings, string, error) {
	f, fs := config.NewRun()
	path := filepath.Join(dir, ".ralph", "config")
	s, err := config.ReadSettings(fs, &f.Config.Checks, dir, withEnv)
	if err != nil {
		return s, "", control.Errorf(words.ExitUsage, "%s: %v", path, err)
	}
	if s.File == "" {
		return s, "", control.Errorf(words.ExitUsage, "no config file: %s", path)
	}
	key, err := trustKey(s.File)
	if err != nil {
		return s, "", control.Errorf(words.ExitUsage, "%v", err)
	}
	return s, key, nil
}

func revokeTrust(w io.Writer, root, dir string) error {
	shown, err := filepath.Abs(filepath.Join(dir, ".ralph", "config"))
	if err != nil {
		return control.Errorf(words.ExitUsage, "%v", err)
	}
	key, err := trustKey(shown)
	if err != nil { // the file may be gone: forget the path as given
		key = shown
	}
	found, err := state.Revoke(root, key)
	if err != nil {
		return control.Errorf(words.ExitFailed, "%v", err)
	}
	if !found {
		fmt.Fprintf(w, "%s was not trusted\n", shown)
		return nil
	}
	fmt.Fprintf(w, "revoked trust in %s: run refuses its commands again\n", shown)
	return nil
}

// listTrusted shows each trusted file, and whether it still is as trusted.
func listTrusted(w io.Writer, root string) error {
	list, err := state.TrustList(root)
	if err != nil {
		return control.Errorf(words.ExitFailed, "%v", err)
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

// checkTrusted answers for scripts: exit 0 when run would take the folder's
// config file as it is (no file, no command in it, or trusted), else exit 1
// with the commands it would run on stdout, one a line.
func checkTrusted(w io.Writer, root, dir string) error {
	if _, err := os.Stat(filepath.Join(dir, ".ralph", "config")); errors.Is(err, fs.ErrNotExist) {
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
		return control.Errorf(words.ExitFailed, "%v", err)
	} else if ok {
		return nil
	}
	for _, c := range cmds {
		fmt.Fprintf(w, "%s %s\n", c.Key, control.QuoteCommand(c.Command))
	}
	return control.Errorf(words.ExitFailed, "")
}

// checkTrust refuses to run commands a config file gives unless this user
// trusted that file as it is now; s says what run read.
func checkTrust(e env, s config.Settings) error {
	cmds := s.FromFile()
	if len(cmds) == 0 {
		return nil
	}
	key, err := trustKey(s.File)
	if err != nil {
		return control.Errorf(words.ExitUsage, "%s: %v", s.File, err)
	}
	trusted, err := state.TrustedSum(state.Root(e.Getenv), key)
	if err != nil {
		return control.Errorf(words.ExitFailed, "%v", err)
	}
	if trusted == s.Sum {
		return nil
	}
	changed := ""
	if trusted != "" {
		changed = " (changed since it was trusted)"
	}
	return control.Errorf(words.ExitUsage, "%s%s would run commands: %s; trust it with: ralph-watch trust %s",
		s.File, changed, describe(cmds), quoteWord(filepath.Dir(filepath.Dir(s.File))))
}

// checkResumeTrust refuses a resume whose config file now gives commands the
// recorded arguments do not: those were trusted (or typed) when the loop
// started; anything the file added since needs trust like a new run.
func checkResumeTrust(e env, st *state.State) error {
	f, fs := config.NewRun()
	if err := fs.Parse(st.WatcherArgs); err != nil {
		return control.Errorf(words.ExitFailed, "recorded arguments: %v", err)
	}
	s, err := config.ReadSettings(fs, &f.Config.Checks, st.WatcherDir, true)
	if err != nil {
		return control.Errorf(words.ExitUsage, "%v", err)
	}
	return checkTrust(e, s)
}

// describe lists commands for one line: check 'make test', on-done 'notify'.
func describe(cmds []state.CommandSource) string {
	parts := make([]string, len(cmds))
	for i, c := range cmds {
		parts[i] = c.Key + " " + control.QuoteCommand(c.Command)
	}
	return strings.Join(parts, ", ")
}

// quoteWord is a path as one shell word, quoted only when it needs it.
func quoteWord(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+,:@%") == "" {
		return s
	}
	return control.QuoteCommand(s)
}

// sourcesEnv carries where each command came from to the background watcher,
// which sees them all as flags.
const sourcesEnv = "RALPH_WATCH_SOURCES"

func sourcesFor(cmds []state.CommandSource) string {
	data, _ := json.Marshal(cmds)
	return sourcesEnv + "=" + string(data)
}
