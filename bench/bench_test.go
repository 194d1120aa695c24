package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/tmux/tmuxtest"
)

func TestParseStatReadsTimesAfterACommandNameWithSpaces(t *testing.T) {
	line := "4908 (my (odd) cmd) S 4894 4908 4908 0 -1 4194560 5385 72895 0 126 4 3 83 42 20 0 1 0 516982 5259264 1002"
	st, err := ParseStat(line)
	if err != nil {
		t.Fatal(err)
	}
	if st.State != "S" || st.PPID != 4894 || st.UserSys != 70*time.Millisecond || st.Children != 1250*time.Millisecond || st.StartTimeTicks != 516982 {
		t.Errorf("ParseStat = %+v", st)
	}
	for _, bad := range []string{"", "12 no parenthesis S 1", "12 (x) S 1 2"} {
		if _, err := ParseStat(bad); err == nil {
			t.Errorf("ParseStat(%q) took it", bad)
		}
	}
}

func TestParseSchedstatAndStatus(t *testing.T) {
	if d, err := ParseSchedstat("77355584 45200262 160\n"); err != nil || d != 77355584*time.Nanosecond {
		t.Errorf("ParseSchedstat = %v, %v", d, err)
	}
	if _, err := ParseSchedstat(""); err == nil {
		t.Error("ParseSchedstat took an empty line")
	}
	status := "Name:\tralph-watch\nVmHWM:\t    8800 kB\nVmRSS:\t    8612 kB\n"
	if kb, err := ParseStatusKB(status, "VmHWM"); err != nil || kb != 8800 {
		t.Errorf("VmHWM = %d, %v", kb, err)
	}
	if _, err := ParseStatusKB(status, "VmSwap"); err == nil {
		t.Error("found a field that is not there")
	}
}

func TestOwnProcessHasCPUAndMemory(t *testing.T) {
	for i := 0; i < 1e6; i++ {
		_ = strings.Repeat("x", i%7)
	}
	cpu, err := CPU(os.Getpid())
	if err != nil || cpu <= 0 {
		t.Errorf("CPU = %v, %v", cpu, err)
	}
	rss, peak, err := Memory(os.Getpid())
	if err != nil || rss <= 0 || peak < rss {
		t.Errorf("Memory = %d, %d, %v", rss, peak, err)
	}
}

func TestSummarizeTakesNearestRanks(t *testing.T) {
	var s []float64
	for i := 10; i >= 1; i-- {
		s = append(s, float64(i))
	}
	if got := Summarize(s); got != (Summary{N: 10, Median: 5, P90: 9, Max: 10}) {
		t.Errorf("Summarize(1..10) = %+v", got)
	}
	if got := Summarize([]float64{3}); got != (Summary{N: 1, Median: 3, P90: 3, Max: 3}) {
		t.Errorf("Summarize(3) = %+v", got)
	}
	if got := Summarize(nil); got.N != 0 {
		t.Errorf("Summarize(nil) = %+v", got)
	}
}

func TestStampsAndTurnLogs(t *testing.T) {
	ts, err := ParseStamp("1000000000 3000000000\n")
	if err != nil || len(ts) != 2 || ts[1].Sub(ts[0]) != 2*time.Second {
		t.Errorf("ParseStamp = %v, %v", ts, err)
	}
	if _, err := ParseStamp("soon"); err == nil {
		t.Error("ParseStamp took a word")
	}
	gaps, err := TurnOvers("start 100\nexit 200\nstart 250\nexit 400\nstart 480\n")
	if err != nil || len(gaps) != 2 || gaps[0] != 50 || gaps[1] != 80 {
		t.Errorf("TurnOvers = %v, %v", gaps, err)
	}
	if _, err := TurnOvers("begin 1"); err == nil {
		t.Error("TurnOvers took a bad line")
	}
}

func TestFiguresJudgeTheTargets(t *testing.T) {
	watch := map[string][]float64{"done_latency_ms": {20, 30, 40}, "turnover_ms": {300}}
	ref := map[string][]float64{"done_latency_ms": {1000, 1100}, "turnover_ms": {1500}}
	fs := figures(watch, ref)
	if len(fs) != 2 {
		t.Fatalf("figures = %+v", fs)
	}
	if fs[0].Key != "done_latency_ms" || !*fs[0].Pass || fs[0].Ratio != 30.0/1000 {
		t.Errorf("done latency = %+v", fs[0])
	}
	if fs[1].Key != "turnover_ms" || *fs[1].Pass {
		t.Errorf("turn-over = %+v", fs[1])
	}
	var b strings.Builder
	(&Report{Figures: fs}).Print(&b)
	if !strings.Contains(b.String(), "| done latency | ms | 30.0 / 40.0 / 40.0 | 1000 / 1100 / 1100 | 0.03 | p50 <= 50, p90 <= 250 | PASS |") ||
		!strings.Contains(b.String(), "MISS") {
		t.Errorf("table:\n%s", b.String())
	}
}

// The reference poller loops the pane like the seed: it restarts an agent
// that exited and stops on the done token.
func TestReferencePollerRestartsExitedAgentsAndStopsOnTheDoneToken(t *testing.T) {
	srv := tmuxtest.Start(t)
	ref := tmuxtest.Build(t, "bench/refpoll")
	agent := tmuxtest.Build(t, "bench/agent")
	prompt := filepath.Join(srv.Dir, "prompt")
	if err := os.WriteFile(prompt, []byte("print RALPH_DONE_42 when done"), 0o644); err != nil {
		t.Fatal(err)
	}
	refpoll := func(args ...string) (string, error) {
		cmd := exec.Command(ref, append([]string{"-S", srv.Socket, "-t", srv.NewPane(), "-prompt-file", prompt, "-interval", "100ms"}, args...)...)
		cmd.Env = srv.Env
		out, err := cmd.CombinedOutput()
		return string(out), err
	}

	log := filepath.Join(srv.Dir, "turn.log")
	if out, err := refpoll("-max-iterations", "3", "-restart-delay", "0", "--", agent, "turn", log); err != nil {
		t.Fatalf("refpoll: %v\n%s", err, out)
	}
	data, _ := os.ReadFile(log)
	if gaps, err := TurnOvers(string(data)); err != nil || len(gaps) != 2 {
		t.Errorf("turn-overs %v (%v) from log:\n%s", gaps, err, data)
	}

	stamp := filepath.Join(srv.Dir, "done.stamp")
	out, err := refpoll("-done", donePattern, "-max-iterations", "1", "--", agent, "done", stamp)
	if err != nil || !strings.Contains(out, "done pattern matched") {
		t.Fatalf("refpoll: %v\n%s", err, out)
	}
	if data, err := os.ReadFile(stamp); err != nil {
		t.Errorf("the loop stopped before the agent printed the token")
	} else if _, err := ParseStamp(string(data)); err != nil {
		t.Error(err)
	}
}
