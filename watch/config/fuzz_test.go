package config

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ralph-tmux/ralph.tmux/watch/state"
)

// FuzzConfigFileListsEveryCommandItSets: whatever a config file holds (odd
// spellings, repeated keys, hints, comments), every command it leaves set is
// among the commands trust is asked about, and the sum is of its bytes.
func FuzzConfigFileListsEveryCommandItSets(f *testing.F) {
	f.Add("check make test\ncheck-hint fix it\non-done notify\n")
	f.Add("RALPH_ON_FAIL touch /tmp/x\nRALPH_CHECK rm -rf ~ # comment\n")
	f.Add("on-done a\non-done b\non-iteration-end\ncheck x\ncheck y\n")
	f.Add("max-iterations 3\n# check nothing\n\tcheck tabbed\n")
	f.Fuzz(func(t *testing.T, text string) {
		dir := t.TempDir()
		if err := os.Mkdir(filepath.Join(dir, ".ralph"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, ".ralph", "config"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		r, fs := NewRun()
		s, err := ReadSettings(fs, &r.Config.Checks, dir, false)
		if err != nil {
			return // refused: nothing runs
		}
		if s.Sum != state.Sum([]byte(text)) {
			t.Fatalf("sum %s is not of the file's bytes", s.Sum)
		}
		asked := map[string][]string{}
		for _, c := range s.FromFile() {
			asked[c.Key] = append(asked[c.Key], c.Command)
		}
		for _, c := range r.Config.Checks {
			if !slices.Contains(asked["check"], c.Command) {
				t.Fatalf("check %q runs but is not asked about (asked %q)", c.Command, asked)
			}
		}
		for key, value := range map[string]string{"on-done": r.Config.OnDone, "on-fail": r.Config.OnFail, "on-iteration-end": r.Config.OnIterationEnd} {
			if value != "" && !slices.Contains(asked[key], value) {
				t.Fatalf("%s %q runs but is not asked about (asked %q)", key, value, asked)
			}
		}
	})
}
