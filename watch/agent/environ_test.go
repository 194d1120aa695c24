package agent

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestCommandEnvIsTheCommandsOwnAssignmentsInFrontOfTheProgram(t *testing.T) {
	for _, c := range []struct {
		words  []string
		inLine bool
		want   []string
	}{
		{[]string{"codex"}, false, nil},
		{[]string{"env", "HOME=/o", "CODEX_HOME=/c", "codex", "X=not-env"}, false, []string{"HOME=/o", "CODEX_HOME=/c"}},
		{[]string{"env", "-u", "PATH", "GEMINI_CLI_HOME=/g", "gemini"}, false, []string{"GEMINI_CLI_HOME=/g"}},
		{[]string{"nice", "-n", "5", "env", "HOME=/o", "codex"}, false, []string{"HOME=/o"}},
		{[]string{"HOME=/o", "codex"}, true, []string{"HOME=/o"}},
		{[]string{"/opt/wrapper", "HOME=/o"}, false, nil},
	} {
		if got := CommandEnv(c.words, c.inLine); !slices.Equal(got, c.want) {
			t.Errorf("CommandEnv(%q) = %q, want %q", c.words, got, c.want)
		}
	}
	getenv := Getenv([]string{"HOME=/a", "HOME=/b"}, func(name string) string { return "watcher's " + name })
	if getenv("HOME") != "/b" || getenv("CODEX_HOME") != "watcher's CODEX_HOME" {
		t.Errorf("Getenv: HOME %q, CODEX_HOME %q", getenv("HOME"), getenv("CODEX_HOME"))
	}
}

// A wrapper that sets HOME for the program it starts: the program's
// environment comes first, then the wrapper's.
func TestEnvironsPutsTheAgentAWrapperStartedBeforeTheWrapper(t *testing.T) {
	cmd := exec.Command("sh", "-c", "HOME=/other/home CODEX_HOME=/other/codex sleep 30; true")
	cmd.Env = []string{"HOME=/watcher/home", "PATH=/usr/bin:/bin"}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	var envs [][]string
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		// The child is seen forked before it has run sleep with its own environment.
		if envs = Environs(cmd.Process.Pid); len(envs) == 2 && Getenv(envs[0], nil)("HOME") == "/other/home" {
			break
		}
	}
	if len(envs) != 2 {
		t.Fatalf("Environs = %q, want the sleep's and the shell's", envs)
	}
	if got := Getenv(envs[0], nil); got("HOME") != "/other/home" || got("CODEX_HOME") != "/other/codex" {
		t.Errorf("first environment %q, want the wrapped program's", envs[0])
	}
	if !slices.Contains(envs[1], "HOME=/watcher/home") || slices.ContainsFunc(envs[1], func(kv string) bool { return strings.HasPrefix(kv, "CODEX_HOME=") }) {
		t.Errorf("second environment %q, want the wrapper's", envs[1])
	}
	if Environs(0) != nil {
		t.Error("Environs(0) found processes")
	}
}
