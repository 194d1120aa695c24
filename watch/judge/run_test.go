package judge

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestAskGivesTheInputOnStdinOrAsTheLastArgument(t *testing.T) {
	input := "judge this: it's \"quoted\" $HOME `x`\nline two\n"
	for _, tc := range []struct {
		name string
		j    Judge
	}{
		{"stdin", Judge{Command: "cat"}},
		{"stdin named", Judge{Command: "cat", Mode: ModeStdin}},
		{"arg", Judge{Command: "printf '%s'", Mode: ModeArg}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := tc.j.Ask(context.Background(), input)
			if a.Code != 0 || a.Out != input {
				t.Errorf("Ask = %+v, want its output the input %q", a, input)
			}
		})
	}
	dir := t.TempDir()
	if a := (Judge{Command: "pwd; echo $RALPH_X", Dir: dir, Env: []string{"RALPH_X=y"}}).Ask(context.Background(), ""); a.Out != dir+"\ny\n" {
		t.Errorf("Dir and Env: %q", a.Out)
	}
	t.Setenv("RALPH_JUDGE_ELSEWHERE", "http://example.invalid")
	if a := (Judge{Command: `echo "[$RALPH_JUDGE_ELSEWHERE]"`, Unset: []string{"RALPH_JUDGE_ELSEWHERE"}}).Ask(context.Background(), ""); a.Out != "[]\n" {
		t.Errorf("Unset: %q", a.Out)
	}
}

func TestAskSaysTheExitStatusAndStandardError(t *testing.T) {
	a := Judge{Command: `echo '{"met": true}'; echo broken >&2; exit 3`}.Ask(context.Background(), "")
	if a.Code != 3 || a.Err != "broken" || a.TimedOut || a.Canceled {
		t.Errorf("Ask = %+v", a)
	}
	if v := FromAnswer(a); v.Met || v.Reason != "exit 3" {
		t.Errorf("verdict %+v, want not met: exit 3", v)
	}
}

// A judge that hangs is killed at its timeout with every process it
// started: nothing of it lives on to write into the work.
func TestAskKillsAHangingJudgeAndItsChildrenAtTheTimeout(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	j := Judge{Command: "sleep 60 & echo $! > " + pidFile + "; wait", Timeout: 300 * time.Millisecond}
	a := j.Ask(context.Background(), "")
	if !a.TimedOut || FromAnswer(a).Reason != ReasonTimeout {
		t.Fatalf("Ask = %+v, want timed out", a)
	}
	data, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(data)))
	deadline := time.Now().Add(10 * time.Second)
	for syscall.Kill(pid, 0) == nil {
		if time.Now().After(deadline) {
			t.Fatalf("the judge's child %d still runs", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestAskStopsWhenTheLoopDoes(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(100 * time.Millisecond); cancel() }()
	a := Judge{Command: "sleep 60"}.Ask(ctx, "")
	if !a.Canceled || a.TimedOut {
		t.Errorf("Ask = %+v, want canceled", a)
	}
}

func TestAskRefusesAnInputTooLongForAnArgument(t *testing.T) {
	a := Judge{Command: "true", Mode: ModeArg}.Ask(context.Background(), strings.Repeat("x", maxArg+1))
	if a.Code == 0 || !strings.Contains(a.Err, "--judge-prompt-mode stdin") {
		t.Errorf("Ask = %+v", a)
	}
}
