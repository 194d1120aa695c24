package report

import (
	"bytes"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/cast"
	"github.com/ralph-tmux/ralph.tmux/watch/history"
	"github.com/ralph-tmux/ralph.tmux/watch/receipt"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
)

// pageOf loads the run of the loop name recorded under root and writes its
// report: the run and the page.
func pageOf(t testing.TB, root, name string) (*history.Run, string) {
	t.Helper()
	run, err := history.Load(root, name)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := Write(&buf, run, Options{}); err != nil {
		t.Fatal(err)
	}
	return run, buf.String()
}

// recordedRun writes the state folder a loop named name leaves after n
// iterations, as the watcher writes it: state.json, iterations.log with
// its START, CHECK, END, FAIL and DONE lines, receipts.jsonl, and one
// asciicast per iteration of an agent redrawing its screen for minutes
// (about castKB each). Every 7th iteration fails a check, every 11th times
// out, the last one ends done. It returns the state root.
func recordedRun(t testing.TB, name string, n, castKB int) string {
	t.Helper()
	root := t.TempDir()
	store := &state.Store{Dir: filepath.Join(root, name)}
	if err := os.MkdirAll(store.Path(state.CastsDir), 0o700); err != nil {
		t.Fatal(err)
	}
	rnd := rand.New(rand.NewSource(int64(n)))
	at := time.Date(2026, 11, 24, 22, 0, 0, 0, time.Local)
	start := at
	reason := "done_pattern"
	pattern := "RALPH_DONE"
	st := &state.State{WorkerName: name, PromptFile: "/work/PROMPT.md", MaxIterations: n + 10, CurrentIteration: n, Status: state.Stopped,
		Started: state.Stamp(at), DonePattern: &pattern, InactivityTimeout: 180, ExitReason: &reason, Agent: "claude",
		Command: []string{"claude", "--model", "sonnet"}, Dir: "/nonexistent/project", MaxCostUSD: float64(n) * 0.09, Shown: "done"}
	for i := 1; i <= n; i++ {
		took := time.Duration(60+rnd.Intn(600)) * time.Second
		_ = store.Log(at, "START", fmt.Sprintf("iteration %d/%d", i, n+10))
		writeCast(t, store.Path(state.CastsDir), name, i, at, took, castKB, rnd)
		end := at.Add(took)
		checkPass := i%7 != 0
		verdict := map[bool]string{true: "pass", false: "fail"}[checkPass]
		code := map[bool]int{true: 0, false: 1}[checkPass]
		_ = store.Log(end, "CHECK", fmt.Sprintf("iteration %d %s exit=%d duration=3s check=%q", i, verdict, code, "go test ./..."))
		_ = store.Log(end, "CHECK", fmt.Sprintf("iteration %d pass exit=0 duration=1s check=%q", i, "go vet ./..."))
		switch {
		case i == n:
			_ = store.Log(end, "END", fmt.Sprintf("iteration %d exit=0 duration=%ds", i, int(took.Seconds())))
			_ = store.Log(end, "DONE", fmt.Sprintf("loop complete after %d iterations reason=done_pattern", i))
		case i%11 == 0:
			_ = store.Log(end, "TIMEOUT", fmt.Sprintf("iteration %d inactivity_timeout=180s", i))
			_ = store.Log(end, "FAIL", fmt.Sprintf("iteration %d inactivity_timeout=180s attempt=1/5", i))
		default:
			_ = store.Log(end, "END", fmt.Sprintf("iteration %d exit=0 duration=%ds", i, int(took.Seconds())))
		}
		usd := 0.02 + rnd.Float64()*0.1
		r := receipt.Receipt{Iteration: i, Agent: "claude", Started: at, Ended: end, Source: "/home/x/.claude/projects/p/s.jsonl",
			Usage:   receipt.Usage{Turns: 4, ToolCalls: 9, Tokens: receipt.Tokens{Input: 1200, Output: int64(3000 + rnd.Intn(5000)), CacheRead: 40000}},
			CostUSD: &usd, Changes: receipt.DiffStat{Files: 1 + i%4, Insertions: 10 + i, Deletions: i % 5},
			Checks: &receipt.CheckSum{Passed: map[bool]int{true: 2, false: 1}[checkPass], Failed: map[bool]int{true: 0, false: 1}[checkPass]}}
		if err := receipt.Append(store.Path(state.ReceiptsFile), r); err != nil {
			t.Fatal(err)
		}
		at = end.Add(time.Second)
	}
	st.LastIterationEnded = state.Stamp(at)
	_ = start
	if err := store.Save(st); err != nil {
		t.Fatal(err)
	}
	return root
}

// writeCast records an agent's screen for took: a status line redrawn
// every second and lines of work, with colour, a box and a "</script>"
// the page must not let out, until about kb kilobytes were written.
func writeCast(t testing.TB, dir, name string, i int, at time.Time, took time.Duration, kb int, rnd *rand.Rand) {
	t.Helper()
	rec, err := cast.Create(filepath.Join(dir, cast.FileName(i)), cast.Header{Width: 100, Height: 30, Name: name, Iteration: i}, at, 0)
	if err != nil {
		t.Fatal(err)
	}
	_ = rec.Output(at, []byte("\x1b[2J\x1b[H\x1b[1;36m╭─ agent ─────────────╮\x1b[0m\r\n"))
	_ = rec.Marker(at.Add(time.Second), cast.MarkPromptDelivered)
	written, steps := 0, max(1, kb*1024/120)
	for s := 0; s < steps; s++ {
		when := at.Add(time.Duration(int64(took) * int64(s+1) / int64(steps+1)))
		line := fmt.Sprintf("\x1b[32m✓\x1b[0m iteration %d step %d: edited file_%d.go <b>&amp;</b> %s\r\n", i, s, rnd.Intn(50), strings.Repeat("·", rnd.Intn(30)))
		if s%9 == 0 {
			line += "</script><!-- not markup -->\r\n"
		}
		_ = rec.Output(when, []byte(line))
		written += len(line)
	}
	_ = rec.Output(at.Add(took-time.Second), []byte(fmt.Sprintf("\x1b[1mITERATION %d FINISHED\x1b[0m\r\n", i)))
	_ = rec.Marker(at.Add(took), cast.MarkTurnEnd)
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
}
