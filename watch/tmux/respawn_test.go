package tmux_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/tmux"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux/tmuxtest"
)

// A key given to the agent by -e is never in a tmux command line, where any
// process on the machine can read it, and the agent gets every value and
// word to the letter, whatever tmux's command language would make of it.
func TestRespawnKeepsTheEnvironmentOutOfTmuxsArgumentsAndEveryByteIntact(t *testing.T) {
	srv := tmuxtest.Start(t)
	real, err := exec.LookPath(srv.Client.Binary)
	if srv.Client.Binary == "" {
		real, err = exec.LookPath("tmux")
	}
	if err != nil {
		t.Fatal(err)
	}
	// A tmux that writes down its arguments before it runs.
	argv := filepath.Join(srv.Dir, "argv")
	wrapper := filepath.Join(srv.Dir, "tmux-logged")
	script := "#!/bin/sh\nprintf '%s\\n' \"$@\" >> '" + argv + "'\nexec '" + real + "' \"$@\"\n"
	if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	client := &tmux.Exec{Binary: wrapper, Server: srv.Client.Server}

	const key = "sk-ant-secret-4711"
	value := key + ` a'b"c $HOME ~ #{pane_id} \x %if` + "\nline two; é;"
	out := filepath.Join(srv.Dir, "seen")
	word := `it's "$HOME" #{pane_id} ;`
	pane := srv.NewPane()
	pid, err := client.Respawn(tmux.RespawnRequest{Pane: pane, Env: []string{"RALPH_TEST_KEY=" + value},
		Command: []string{"/bin/sh", "-c", `printf '%s\n%s' "$RALPH_TEST_KEY" "$1" > "$2"; sleep 30`, "sh", word, out}})
	if err != nil {
		t.Fatal(err)
	}
	if p, err := srv.Client.Pane(pane); err != nil || pid == 0 || p.PID != pid {
		t.Errorf("Respawn's pid %d, the pane's %d (%v)", pid, p.PID, err)
	}
	want := value + "\n" + word
	tmuxtest.Eventually(t, 5*time.Second, "the agent's environment and words", func() bool {
		got, _ := os.ReadFile(out)
		return string(got) == want
	})
	logged, err := os.ReadFile(argv)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(logged), key) {
		t.Errorf("the key is in tmux's arguments:\n%s", logged)
	}
	// An error still names the command.
	_, err = client.Respawn(tmux.RespawnRequest{Pane: "%999", Env: []string{"RALPH_TEST_KEY=" + value}, Command: []string{"true"}})
	if err == nil || !strings.Contains(err.Error(), "respawn-pane") || strings.Contains(err.Error(), key) {
		t.Errorf("Respawn into a pane that does not exist: %v", err)
	}
}
