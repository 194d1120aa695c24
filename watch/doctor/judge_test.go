package doctor

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/fakeapi"
	"github.com/ralph-tmux/ralph.tmux/watch/judge"
)

// A judge that answers one JSON verdict passes; prose, invalid JSON, a
// non-zero exit, a hang and met with missing items each fail, saying why.
func TestCheckJudgeReadsTheAnswerAsALoopWould(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, command, reason, line string
	}{
		{"JSON", `cat > /dev/null; echo '{"met": false, "missing": ["a test"], "evidence": []}'`, "", "✓ answer               JSON, not met; missing: a test"},
		{"JSON in prose", "cat > /dev/null; printf 'Verdict:\\n```json\\n{\"met\": true, \"evidence\": [\"hello.txt\"]}\\n```\\n'", "", "✓ answer               JSON, met; evidence: hello.txt"},
		{"prose", `echo 'Looks done to me.'`, judge.ReasonNoJSON, "✗ answer               no JSON"},
		{"invalid JSON", `echo '{"met": tru}'`, judge.ReasonInvalidJSON, "✗ answer               invalid JSON"},
		{"exit 1", `echo '{"met": true}'; exit 1`, "exit 1", "✗ judge runs           exit 1"},
		{"hangs", `sleep 30`, judge.ReasonTimeout, "✗ judge runs           timeout: no answer within 300ms (--judge-timeout)"},
		{"met with missing", `echo '{"met": true, "missing": ["docs"]}'`, judge.ReasonMetMissing, "✗ answer               met with missing items"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rep, err := CheckJudge(context.Background(), JudgeOptions{Command: tc.command, Timeout: 300 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			rep.WriteText(&out)
			if rep.Works != (tc.reason == "") || rep.Reason != tc.reason || rep.Agent != "" {
				t.Errorf("works %v, reason %q, agent %q; want reason %q\n%s", rep.Works, rep.Reason, rep.Agent, tc.reason, out.String())
			}
			if !strings.Contains(out.String(), tc.line+"\n") {
				t.Errorf("the report lacks %q:\n%s", tc.line, out.String())
			}
			if tc.reason == "" && !strings.Contains(out.String(), "The judge answers in the JSON form a loop reads") {
				t.Errorf("no verdict line:\n%s", out.String())
			}
		})
	}
}

// The judge is given the judge's input a loop gives, by stdin or as its
// last argument.
func TestCheckJudgeGivesTheFixedInputAsALoopDoes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, mode := range []string{judge.ModeStdin, judge.ModeArg} {
		got := filepath.Join(dir, mode)
		command := `cat > ` + got + `; echo '{"met": true}'`
		if mode == judge.ModeArg {
			command = `f() { printf '%s' "$1" > ` + got + `; echo '{"met": true}'; }; f`
		}
		rep, err := CheckJudge(context.Background(), JudgeOptions{Command: command, Mode: mode})
		if err != nil || !rep.Works {
			t.Fatalf("%s: %+v, %v", mode, rep, err)
		}
		data, _ := os.ReadFile(got)
		input := JudgeEvidence().Input()
		if string(data) != input || rep.InputBytes != len(input) {
			t.Errorf("%s: the judge was given %q (%d bytes reported), want %q", mode, data, rep.InputBytes, input)
		}
	}
	t.Logf("doctor's judge input, %d bytes:\n%s", len(JudgeEvidence().Input()), JudgeEvidence().Input())
}

// A known agent runs with doctor's throwaway HOME and the fake API's
// address, the person's own tokens unset; one that answers without asking
// the fake API fails: something else answered.
func TestCheckJudgeRunsAKnownAgentAgainstTheFakeAPI(t *testing.T) {
	dir := t.TempDir()
	seen := filepath.Join(dir, "seen")
	claude := filepath.Join(dir, "claude")
	script := "#!/bin/sh\ncat > /dev/null\necho \"HOME=$HOME URL=$ANTHROPIC_BASE_URL TOKEN=[$ANTHROPIC_AUTH_TOKEN]\" > " + seen + "\necho '{\"met\": true}'\n"
	if err := os.WriteFile(claude, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("ANTHROPIC_AUTH_TOKEN", "the-persons-own-token")
	rep, err := CheckJudge(context.Background(), JudgeOptions{Command: claude + " -p --model haiku"})
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(seen)
	if !strings.Contains(string(data), "/home URL=http://127.0.0.1:") || !strings.Contains(string(data), "TOKEN=[]") || strings.Contains(string(data), "HOME="+os.Getenv("HOME")+" ") {
		t.Errorf("the agent ran with %s", data)
	}
	var out bytes.Buffer
	rep.WriteText(&out)
	if rep.Agent != "claude" || rep.Works || rep.Reached || !strings.Contains(rep.Reason, "answered without asking doctor's fake model API") ||
		!strings.Contains(out.String(), "✗ input reaches model  the fake model API received no judge's input\n") {
		t.Errorf("agent %q works %v reached %v reason %q\n%s", rep.Agent, rep.Works, rep.Reached, rep.Reason, out.String())
	}
}

// The fake API tells a judge's request by the first sentence of every
// judge's input.
func TestTheFakeAPIKnowsTheJudgesInput(t *testing.T) {
	if judge.Opening != fakeapi.JudgeMarker || !strings.HasPrefix(JudgeEvidence().Input(), fakeapi.JudgeMarker) {
		t.Errorf("judge.Opening %q, fakeapi.JudgeMarker %q", judge.Opening, fakeapi.JudgeMarker)
	}
}
