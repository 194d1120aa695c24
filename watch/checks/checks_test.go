package checks

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func TestTailTextKeepsTheEndAndMarksOnlyACut(t *testing.T) {
	tests := []struct {
		name string
		out  string
		cut  bool
		max  int
		want string
	}{
		{"short output stays whole", "ok\n", false, 10, "ok"},
		{"exactly the limit is not cut", "0123456789", false, 10, "0123456789"},
		{"one over keeps the end", "0123456789X", false, 10, Truncated + "\n123456789X"},
		{"characters, not bytes", "ääääü", false, 3, Truncated + "\nääü"},
		{"a zero limit keeps only the mark", "abc", false, 0, Truncated + "\n"},
		{"zero limit on empty output", "", false, 0, ""},
		{"already cut output is marked", "tail", true, 10, Truncated + "\ntail"},
		{"a rune split by an earlier cut is dropped", "\x9c\xa4ail", true, 10, Truncated + "\nail"},
		{"escapes and control characters go", "\x1b[31mFAIL\x1b[0m\a x\x00y\n", false, 100, "FAIL xy"},
		{"OSC titles go", "\x1b]0;title\x07done", false, 100, "done"},
		{"C1 controls go", "a\u009b31mb\u0085c", false, 100, "abc"},
		{"a bracketed paste end cannot get through", "a\x1b[201~b", false, 100, "ab"},
		{"tabs and line breaks stay", "a\tb\nc", false, 100, "a\tb\nc"},
		{"trailing line breaks are trimmed", "summary\n\n\n", false, 100, "summary"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := TailText([]byte(tc.out), tc.cut, tc.max); got != tc.want {
				t.Errorf("TailText(%q, %v, %d) = %q, want %q", tc.out, tc.cut, tc.max, got, tc.want)
			}
		})
	}
}

func TestSlugNamesALogFileSafely(t *testing.T) {
	for in, want := range map[string]string{
		"go test ./...":            "go-test",
		"make LINT=1 lint":         "make-lint-1-lint",
		"../../etc/passwd":         "etc-passwd",
		"   ":                      "check",
		"日本":                       "check",
		strings.Repeat("abc ", 30): "abc-abc-abc-abc-abc-abc-abc-abc-abc-abc",
	} {
		if got := Slug(in); got != want {
			t.Errorf("Slug(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestFeedbackHasTheContractForm(t *testing.T) {
	runs := []CheckRun{
		{Check: Check{Command: "go vet ./..."}, Code: 0, Log: "/s/checks/3-go-vet.log", Tail: "fine"},
		{Check: Check{Command: "go test ./...", Hint: "run one test with -run"}, Code: 1, Log: "/s/checks/3-go-test.log", Tail: "--- FAIL: TestX\nFAIL"},
		{Check: Check{Command: "sleep 9"}, Code: 124, TimedOut: true, Log: "/s/checks/3-sleep-9.log", Tail: ""},
	}
	want := "Check \"go test ./...\" failed with exit code 1.\n" +
		"Hint: run one test with -run\n" +
		"Output file: /s/checks/3-go-test.log\n" +
		"--- FAIL: TestX\nFAIL\n" +
		"\n" +
		"Check \"sleep 9\" failed with exit code 124. (It timed out.)\n" +
		"Output file: /s/checks/3-sleep-9.log"
	if got := Feedback(runs); got != want {
		t.Errorf("Feedback =\n%s\nwant\n%s", got, want)
	}
	if got := Feedback(runs[:1]); got != "" {
		t.Errorf("Feedback of passing checks = %q, want none", got)
	}
	if got := CheckSummary(runs); got != "1 of 3 checks passed" {
		t.Errorf("CheckSummary = %q", got)
	}
}

func TestProgressSectionSaysHowTheIterationWent(t *testing.T) {
	runs := []CheckRun{{Check: Check{Command: "make"}}, {Check: Check{Command: "make test"}, Code: 2}}
	got := ProgressSection(4, "2024-01-15T10:30:00", 65*time.Second, "0", "exit", runs)
	want := "## Iteration 4\n\n- Started: 2024-01-15T10:30:00\n- Duration: 1m 5s\n- Exit: 0\n- Ended by: exit\n" +
		"- Checks: 1 of 2 checks passed\n  - pass: `make`\n  - fail (exit 2): `make test`\n"
	if got != want {
		t.Errorf("ProgressSection =\n%s\nwant\n%s", got, want)
	}
	got = ProgressSection(5, "", time.Second, "", "inactivity_timeout", nil)
	if !strings.Contains(got, "- Exit: none (the agent had not exited)\n- Ended by: inactivity_timeout\n- Checks: none\n") {
		t.Errorf("ProgressSection without an exit:\n%s", got)
	}
}

func TestRunChecksSavesOutputAndBoundsTime(t *testing.T) {
	dir := t.TempDir()
	env := CheckEnv{Dir: dir, Env: []string{"RALPH_NAME=t"}, Timeout: time.Second}
	checks := []Check{
		{Command: `echo "in $(basename "$PWD") as $RALPH_NAME"; seq 1 2000`},
		{Command: "echo failing >&2; exit 3", Hint: "look"},
		{Command: "(sleep 2; touch late) & sleep 30; echo never"},
		{Command: "exit 0"},
		{Command: "exit  0"}, // the same slug
	}
	start := time.Now()
	runs := RunChecks(context.Background(), env, checks, 7, filepath.Join(dir, "checks"), 20)
	if took := time.Since(start); took > 20*time.Second {
		t.Errorf("checks took %s; the timed-out one was not ended", took)
	}
	if len(runs) != 5 {
		t.Fatalf("%d runs", len(runs))
	}
	log0, _ := os.ReadFile(runs[0].Log)
	if filepath.Base(runs[0].Log) != "7-echo-in-basename-pwd-as-ralph-name-seq-1.log" ||
		!strings.HasPrefix(string(log0), "in "+filepath.Base(dir)+" as t\n1\n") || !strings.HasSuffix(string(log0), "\n2000\n") {
		t.Errorf("log %s:\n%.100s", runs[0].Log, log0)
	}
	if !runs[0].Passed() || runs[0].Tail != Truncated+"\n\n1997\n1998\n1999\n2000" {
		t.Errorf("run 0: %+v", runs[0])
	}
	if r := runs[1]; r.Passed() || r.Code != 3 || r.Tail != "failing" || r.Hint != "look" {
		t.Errorf("run 1: %+v", r)
	}
	if r := runs[2]; r.Passed() || !r.TimedOut || r.Code != 124 {
		t.Errorf("run 2: %+v", r)
	}
	if !runs[3].Passed() || filepath.Base(runs[4].Log) != "7-exit-0-2.log" {
		t.Errorf("runs 3, 4: %+v %+v", runs[3], runs[4])
	}
	// The timed-out check's children went with it.
	time.Sleep(time.Until(start.Add(3 * time.Second)))
	if _, err := os.Stat(filepath.Join(dir, "late")); err == nil {
		t.Error("a child of the timed-out check ran on")
	}
}

// Check output is untrusted text on its way into a prompt that is pasted
// into a terminal: whatever it holds, what comes out is bounded and inert.
func FuzzTailText(f *testing.F) {
	f.Add([]byte("ok\n"), false, 10)
	f.Add([]byte("\x1b[201~\x1b]0;t\x07\x9b31m"), true, 3)
	f.Add([]byte("ääää\r\nx"), false, 2)
	f.Fuzz(func(t *testing.T, out []byte, cut bool, max int) {
		if max < 0 || max > 1<<16 {
			return
		}
		got := TailText(out, cut, max)
		body, marked := strings.CutPrefix(got, Truncated+"\n")
		if cut && !marked {
			t.Fatalf("cut output not marked: %q", got)
		}
		if n := utf8.RuneCountInString(body); n > max {
			t.Fatalf("%d characters kept, limit %d", n, max)
		}
		for _, r := range body {
			if r < 0x20 && r != '\n' && r != '\t' || r >= 0x7f && r <= 0x9f || r == utf8.RuneError {
				t.Fatalf("control character %U kept in %q", r, got)
			}
		}
	})
}
