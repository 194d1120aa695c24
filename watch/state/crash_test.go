package state

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// writerEnv makes this test binary a process that saves state in a tight
// loop until it is killed (see TestStateWriterProcess).
const writerEnv = "RALPH_TEST_STATE_WRITER"

func TestStateWriterProcess(t *testing.T) {
	dir := os.Getenv(writerEnv)
	if dir == "" {
		t.Skip("only run as the writer of TestAStateFileIsNeverSeenHalfWritten")
	}
	s := &Store{Dir: dir}
	st := sampleState()
	for i := 0; ; i++ {
		st.CurrentIteration = i
		st.IterationDurations = append(st.IterationDurations, i) // grows, so a torn write would show
		if err := s.Save(st); err != nil {
			t.Fatal(err)
		}
	}
}

func TestAStateFileIsNeverSeenHalfWritten(t *testing.T) {
	s := openStore(t, t.TempDir(), "loop")
	if err := s.Save(sampleState()); err != nil {
		t.Fatal(err)
	}
	kills := 30
	if testing.Short() {
		kills = 10
	}
	last := -1
	for k := 0; k < kills; k++ {
		cmd := exec.Command(os.Args[0], "-test.run=^TestStateWriterProcess$")
		cmd.Env = append(os.Environ(), writerEnv+"="+s.Dir)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Read while it writes: every read is a whole file.
		deadline := time.Now().Add(time.Duration(20+k*7%60) * time.Millisecond)
		for time.Now().Before(deadline) {
			if _, err := s.Load(); err != nil {
				cmd.Process.Kill()
				_ = cmd.Wait()
				t.Fatalf("read during writes: %v", err)
			}
		}
		cmd.Process.Kill() // SIGKILL, anywhere in Save
		_ = cmd.Wait()
		st, err := s.Load()
		if err != nil {
			t.Fatalf("after kill %d: %v", k, err)
		}
		if len(st.IterationDurations) != 3+st.CurrentIteration+1 && st.CurrentIteration != 4 {
			t.Fatalf("after kill %d: iteration %d with %d durations: a mixed file", k, st.CurrentIteration, len(st.IterationDurations))
		}
		last = st.CurrentIteration
	}
	t.Logf("%d kills; the last state read was iteration %d", kills, last)
	data, _ := os.ReadFile(s.Path(StateFile))
	if !bytes.HasSuffix(data, []byte("}\n")) {
		t.Errorf("state.json does not end whole: %q", data[max(0, len(data)-20):])
	}
	// Killed writers leave their temp files; none is ever read as state.
	entries, _ := filepath.Glob(filepath.Join(s.Dir, "*"))
	for _, e := range entries {
		if b := filepath.Base(e); b != StateFile && b != StateGood && !strings.HasPrefix(b, ".state-") {
			t.Errorf("unexpected file %s", b)
		}
	}
}
