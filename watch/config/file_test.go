package config

import (
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"testing"

	"github.com/ralph-tmux/ralph.tmux/watch/state"
)

// Where each command comes from, as ff orders them (flags > RALPH_* >
// .ralph/config), whatever spelling the file uses for a key.
func TestReadSettingsTellsWhereEachCommandCameFrom(t *testing.T) {
	for _, tc := range []struct {
		name string
		file string // "" for no file
		env  map[string]string
		args []string
		want []string // key command from
	}{
		{"no file, nothing", "", nil, nil, nil},
		{"values that run nothing", "max-iterations 3\ndone-pattern RALPH_DONE\n", nil, nil, nil},
		{"the file's commands", "check make test\ncheck-hint fix it\non-done notify done\n", nil, nil,
			[]string{"check make test config file", "on-done notify done config file"}},
		{"a key spelt as its variable", "RALPH_ON_FAIL touch /tmp/x\n", nil, nil, []string{"on-fail touch /tmp/x config file"}},
		{"flags replace the file's checks", "check make test\non-done notify\n", nil, []string{"--check", "go vet ./..."},
			[]string{"check go vet ./... flag", "on-done notify config file"}},
		{"the environment beats the file", "on-iteration-end x\n", map[string]string{"RALPH_ON_ITERATION_END": "y"}, nil,
			[]string{"on-iteration-end y environment"}},
		{"a flag beats the environment", "", map[string]string{"RALPH_ON_DONE": "env"}, []string{"--on-done=flag"},
			[]string{"on-done flag flag"}},
		{"an empty hook runs nothing", "", nil, []string{"--on-done="}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if tc.file != "" {
				if err := os.Mkdir(filepath.Join(dir, ".ralph"), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, ".ralph", "config"), []byte(tc.file), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			for _, name := range []string{"RALPH_CHECK", "RALPH_ON_DONE", "RALPH_ON_FAIL", "RALPH_ON_ITERATION_END"} {
				t.Setenv(name, tc.env[name])
			}
			f, fs := NewRun()
			if err := fs.Parse(tc.args); err != nil {
				t.Fatal(err)
			}
			s, err := ReadSettings(fs, &f.Config.Checks, dir, true)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, c := range s.Commands {
				got = append(got, c.Key+" "+c.Command+" "+c.From)
				if (c.From == state.FromConfig) != (c.File == filepath.Join(dir, ".ralph", "config")) {
					t.Errorf("%+v: file named only for the config file's commands", c)
				}
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("commands %q, want %q", got, tc.want)
			}
			if (s.File != "") != (tc.file != "") || (tc.file != "" && s.Sum != state.Sum([]byte(tc.file))) {
				t.Errorf("file %q sum %s", s.File, s.Sum)
			}
		})
	}
}

// Every flag whose value is a command is marked so (a commandString or
// checkFlag): a flag added later that names a command and is not fails here
// instead of running from an untrusted config file.
func TestTheCommandKeysAreTheFlagsThatRunCommands(t *testing.T) {
	_, fs := NewRun()
	namesCommand := regexp.MustCompile(`(?i)^command|sh -c|\$SHELL|shell`)
	var got []string
	fs.VisitAll(func(fl *flag.Flag) {
		if RunsCommand(fl) {
			got = append(got, fl.Name)
		}
		if namesCommand.MatchString(fl.Usage) && !RunsCommand(fl) {
			t.Errorf("--%s (%q) names a command: register it as a commandString", fl.Name, fl.Usage)
		}
	})
	for _, want := range []string{"check", "on-done", "on-fail", "on-iteration-end"} {
		if !slices.Contains(got, want) {
			t.Errorf("--%s is not a command key; command keys: %q", want, got)
		}
	}
}
