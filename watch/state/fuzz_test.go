package state

import (
	"os"
	"strings"
	"testing"
)

// FuzzLoad: whatever bytes state.json holds, Load returns a state or an
// error naming the file and the way out, and never panics.
func FuzzLoad(f *testing.F) {
	data, _ := os.ReadFile("testdata/sample-state.json")
	f.Add(data)
	f.Add([]byte(`{"worker_name": "a", "status": "runn`))
	f.Add([]byte(`null`))
	f.Add([]byte(`{"iteration_durations": [1e400], "checks": [{"results": [null]}]}`))
	dir := f.TempDir()
	s := &Store{Dir: dir}
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(s.Path(StateFile), data, 0o600); err != nil {
			t.Fatal(err)
		}
		st, err := s.Load()
		if err != nil {
			for _, want := range []string{s.Path(StateFile), "clean", "--replace"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q lacks %q", err, want)
				}
			}
			return
		}
		if st == nil {
			t.Fatal("Load returned neither state nor error")
		}
		st.LastChecks()
		st.AddChecks(Checks{Iteration: st.CurrentIteration + 1})
	})
}
