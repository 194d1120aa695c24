package progress_test

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/ralph-tmux/ralph.tmux/watch/progress"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
)

// told is what the plan told, in order.
type told struct{ lines []string }

func (o *told) Log(event, message string) { o.lines = append(o.lines, "log "+event+" "+message) }
func (o *told) Say(line string)           { o.lines = append(o.lines, "say "+line) }
func (o *told) Warn(line string)          { o.lines = append(o.lines, "warn "+line) }

// newPlan is the progress through plan (written as file in a fresh
// folder, the work's and the loop's).
func newPlan(t *testing.T, file, text string, s progress.Settings) (*progress.Plan, *told) {
	t.Helper()
	dir := t.TempDir()
	s.Dir, s.File = dir, filepath.Join(dir, file)
	if err := os.WriteFile(s.File, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	store, err := state.Open(filepath.Join(dir, ".state"), "loop")
	if err != nil {
		t.Fatal(err)
	}
	s.Store = store
	out := &told{}
	p := progress.New(s, out, nil)
	if err := p.Read(); err != nil {
		t.Fatal(err)
	}
	return p, out
}

// Deciding that a done signal does not end a plan's loop changes nothing:
// the done file stays for the loop to remove, and nothing is said until
// the loop tells it, once.
func TestPlanIgnoresDoneChangesNothingAndTheLoopTellsItOnce(t *testing.T) {
	done := filepath.Join(t.TempDir(), "DONE")
	if err := os.WriteFile(done, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	p, out := newPlan(t, "PLAN.md", "- [ ] Add the parser\n- [x] Add the command\n", progress.Settings{DoneFile: done})
	for range 3 {
		if !p.IgnoresDone() {
			t.Fatal("IgnoresDone = false with a plan")
		}
	}
	if _, err := os.Stat(done); err != nil {
		t.Errorf("IgnoresDone removed the done file: %v", err)
	}
	if len(out.lines) != 0 {
		t.Errorf("IgnoresDone told %q; the loop tells it", out.lines)
	}
	p.DoneIgnored(4)
	p.DoneIgnored(5)
	want := []string{
		"say done signal ignored: the plan has 1 of 2 tasks open; it ends when they are done",
		"log TASK iteration 4 done signal ignored: the plan decides (open=1)",
	}
	if !reflect.DeepEqual(out.lines, want) {
		t.Errorf("DoneIgnored twice told %q, want once %q", out.lines, want)
	}
	if progress.New(progress.Settings{DoneFile: done}, out, nil).IgnoresDone() {
		t.Error("a loop without a plan ignores its done signal")
	}
}

// The plan's verify commands are returned for the loop's checks, as the
// plan last read has them: the plan holds no checks of its own.
func TestPlanVerifyIsThePlansVerifyCommandsAsLastRead(t *testing.T) {
	plan := `{"userStories": [{"id": "US-1", "title": "Parse", "passes": false}], "verifyCommands": ["go vet ./...", "go test ./..."]}`
	p, _ := newPlan(t, "tasks.json", plan, progress.Settings{})
	if want := []string{"go vet ./...", "go test ./..."}; !reflect.DeepEqual(p.Verify(), want) {
		t.Errorf("Verify = %q, want %q", p.Verify(), want)
	}
	file := p.Record().File
	if err := os.WriteFile(file, []byte(`{"userStories": [{"id": "US-1", "title": "Parse", "passes": false}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := p.Read(); err != nil {
		t.Fatal(err)
	}
	if got := p.Verify(); len(got) != 0 {
		t.Errorf("Verify after the commands were taken out = %q, want none", got)
	}
	if got := progress.New(progress.Settings{}, &told{}, nil).Verify(); got != nil {
		t.Errorf("Verify without a plan = %q", got)
	}
}
