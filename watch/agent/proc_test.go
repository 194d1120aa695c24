package agent

import (
	"os"
	"os/exec"
	"slices"
	"syscall"
	"testing"
	"time"
)

// startTree starts a shell running script in a session of its own, as a pane's process is.
func startTree(t *testing.T, script string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command("/bin/sh", "-c", script)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { _ = cmd.Wait() }()     // reaped, so an ended shell is not a live zombie
	time.Sleep(100 * time.Millisecond) // its traps are set
	return cmd
}

func TestEndTreeWaitsForATreeThatGoesWithinItsGraceAndKillsOneThatStays(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc")
	}
	goes := startTree(t, `trap 'sleep 0.3; exit 0' HUP TERM; while :; do sleep 0.05; done`)
	begun := time.Now()
	if killed := EndTree(goes.Process.Pid, 5*time.Second); len(killed) != 0 {
		t.Errorf("a shell that ends 0.3 s after TERM: killed %v", killed)
	}
	if took := time.Since(begun); took < 250*time.Millisecond {
		t.Errorf("EndTree returned after %s, before the shell's trap was done", took)
	}

	stays := startTree(t, `trap '' HUP TERM; while :; do sleep 0.05; done`)
	begun = time.Now()
	if killed := EndTree(stays.Process.Pid, 300*time.Millisecond); !slices.Contains(killed, stays.Process.Pid) {
		t.Errorf("a shell that ignores HUP and TERM was not killed: %v", killed)
	}
	if took := time.Since(begun); took < 250*time.Millisecond {
		t.Errorf("the shell was killed after %s, before its grace", took)
	}
}
