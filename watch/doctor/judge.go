package doctor

// doctor --judge: does a goal loop's judge answer in the JSON form the
// loop reads? The judge runs once on a small fixed input, as a loop runs
// it (sh -c, the input on its standard input or as its last argument);
// a known agent (claude -p, codex exec, gemini -p) runs offline, with a
// throwaway HOME, against the fake model API, which answers a judge's
// request with a JSON verdict (fakeapi's !judge).

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/agent"
	"github.com/ralph-tmux/ralph.tmux/watch/checks"
	"github.com/ralph-tmux/ralph.tmux/watch/fakeapi"
	"github.com/ralph-tmux/ralph.tmux/watch/judge"
)

// JudgeOptions say which judge to check and how it is run.
type JudgeOptions struct {
	Command string        // as --judge gives it, run with sh -c
	Mode    string        // judge.ModeStdin ("": the same) or judge.ModeArg
	Timeout time.Duration // 0: JudgeTimeout
}

// JudgeTimeout bounds doctor's run of a judge: a one-shot agent against
// the fake API answers in seconds.
const JudgeTimeout = 2 * time.Minute

// JudgeReport is what doctor found out about a judge.
type JudgeReport struct {
	Command    string        `json:"command"`         // as given, secrets hidden
	Agent      string        `json:"agent,omitempty"` // the agent run against the fake API; "": run as given
	InputBytes int           `json:"input_bytes"`
	Exit       int           `json:"exit"`
	TimedOut   bool          `json:"timed_out,omitempty"`
	Verdict    judge.Verdict `json:"verdict"`
	// Reached says the fake model API received the judge's input (an
	// agent only); Intact, byte for byte.
	Reached bool          `json:"input_reached_model,omitempty"`
	Intact  bool          `json:"input_intact,omitempty"`
	Works   bool          `json:"works"`            // a loop would read its verdicts
	Reason  string        `json:"reason,omitempty"` // why not: no JSON, invalid JSON, exit N, timeout…
	Output  string        `json:"output,omitempty"` // the end of its output, when it does not work
	Stderr  string        `json:"stderr,omitempty"` // the end of its standard error, when it does not work
	Took    time.Duration `json:"-"`
	limit   time.Duration // the judge's timeout
}

// judgeVerdict is what the fake model answers a judge's request with.
const judgeVerdict = `{"met": true, "missing": [], "evidence": ["hello.txt holds hello, as the goal asks (doctor's fake model)"]}`

// notJudged is what it answers any other request with: prose, which the
// loop reads as no JSON.
const notJudged = "Doctor's fake model: this request held no judge's input."

// JudgeEvidence is the small fixed evidence doctor's judge is given: a
// goal, a one-file diff, one passing check.
func JudgeEvidence() judge.Evidence {
	return judge.Evidence{
		Goal:      "A file hello.txt that says hello.",
		Iteration: 1,
		Base:      "4b825dc642cb6eb9a060e54bf8d69288fbee4904",
		Diff:      "diff --git a/hello.txt b/hello.txt\nnew file mode 100644\nindex 0000000..ce01362\n--- /dev/null\n+++ b/hello.txt\n@@ -0,0 +1 @@\n+hello\n",
		Checks:    []checks.CheckRun{{Check: checks.Check{Command: "grep -qx hello hello.txt"}, Code: 0, Duration: 10 * time.Millisecond}},
	}
}

// oneShotAgents are the agents doctor can point at its fake API.
var oneShotAgents = []string{"claude", "codex", "gemini", "opencode", "copilot"}

// CheckJudge runs the judge once on JudgeEvidence's input and reads its
// answer as a loop would. An error means it could not be run at all.
func CheckJudge(ctx context.Context, o JudgeOptions) (*JudgeReport, error) {
	began := time.Now()
	if strings.TrimSpace(o.Command) == "" {
		return nil, fmt.Errorf("--judge needs a command")
	}
	words := strings.Fields(o.Command)
	shown, _, _ := agent.HideSecrets(words, os.Getenv)
	rep := &JudgeReport{Command: strings.Join(shown, " ")}
	input := JudgeEvidence().Input()
	rep.InputBytes = len(input)
	j := judge.Judge{Command: o.Command, Mode: o.Mode, Timeout: o.Timeout}
	if j.Timeout <= 0 {
		j.Timeout = JudgeTimeout
	}
	dir, err := os.MkdirTemp("", "ralph-doctor-judge-")
	if err != nil {
		return nil, err
	}
	defer func() { _ = os.RemoveAll(dir) }()
	j.Dir = filepath.Join(dir, "proj")
	if err := os.MkdirAll(j.Dir, 0o700); err != nil {
		return nil, err
	}
	var api *fakeapi.Server
	if name := agent.Guess(words); slices.Contains(oneShotAgents, name) {
		rep.Agent = name
		api, err = fakeapi.Start(fakeapi.Options{Reply: "!judge " + judgeVerdict + "\n" + notJudged, Log: filepath.Join(dir, "api.log")})
		if err != nil {
			return nil, fmt.Errorf("start the fake API: %w", err)
		}
		defer func() { _ = api.Close() }()
		home, tmp := filepath.Join(dir, "home"), filepath.Join(dir, "tmp")
		for _, d := range []string{home, tmp} {
			if err := os.MkdirAll(d, 0o700); err != nil {
				return nil, err
			}
		}
		setup, err := Prepare(name, home, j.Dir, api.URL)
		if err != nil {
			return nil, fmt.Errorf("prepare %s's configuration: %w", name, err)
		}
		j.Env = append([]string{"HOME=" + home, "TMPDIR=" + tmp, "NO_PROXY=127.0.0.1,localhost"}, setup.Env...)
		j.Unset = setup.Unset
	}

	rep.limit = j.Timeout
	a := j.Ask(ctx, input)
	rep.Exit, rep.TimedOut = a.Code, a.TimedOut
	rep.Verdict = judge.FromAnswer(a)
	rep.Reason = rep.Verdict.Reason
	if api != nil {
		for _, r := range api.Requests() {
			for _, text := range r.Texts {
				if strings.Contains(text, judge.Opening) {
					rep.Reached = true
					rep.Intact = rep.Intact || strings.TrimSpace(text) == strings.TrimSpace(input)
				}
			}
		}
		if rep.Reason == "" && !rep.Reached {
			rep.Reason = "it answered without asking doctor's fake model API (does the command set its own HOME or model API?)"
		}
	}
	rep.Works = rep.Reason == ""
	if !rep.Works {
		rep.Output, rep.Stderr = lastLines(a.Out, 6), lastLines(a.Err, 6)
	}
	rep.Took = time.Since(began)
	return rep, nil
}

// judgeTitles are the report's lines, in order.
var judgeTitles = []string{"judge runs", "input reaches model", "answer"}

// WriteText prints the judge's report, one line per step.
func (r *JudgeReport) WriteText(w io.Writer) {
	width := 0
	for _, t := range judgeTitles {
		width = max(width, len([]rune(t)))
	}
	line := func(s Status, title, detail string) {
		fmt.Fprintf(w, "%s %-*s  %s\n", s.Mark(), width, title, detail)
	}
	took := r.Took.Round(100 * time.Millisecond)
	ran := true
	switch {
	case r.TimedOut:
		line(Fail, "judge runs", fmt.Sprintf("timeout: no answer within %s (--judge-timeout)", r.limit))
		ran = false
	case r.Exit != 0:
		line(Fail, "judge runs", fmt.Sprintf("exit %d", r.Exit))
		ran = false
	default:
		line(OK, "judge runs", fmt.Sprintf("exit 0, on a %d-byte input", r.InputBytes))
	}
	if r.Agent != "" {
		switch {
		case r.Intact:
			line(OK, "input reaches model", "the fake model API received the judge's input intact")
		case r.Reached:
			line(OK, "input reaches model", "the fake model API received the judge's input (changed on the way)")
		default:
			line(Fail, "input reaches model", "the fake model API received no judge's input")
		}
	}
	switch {
	case !ran:
		line(Untried, "answer", "not read: "+r.Reason+" is not met whatever it printed")
	case r.Works && r.Verdict.Met:
		line(OK, "answer", "JSON, met; evidence: "+shorten(strings.Join(r.Verdict.Evidence, "; "), 80))
	case r.Works:
		line(OK, "answer", "JSON, not met; missing: "+shorten(strings.Join(r.Verdict.Missing, "; "), 80))
	default:
		line(Fail, "answer", r.Reason)
	}
	if !r.Works {
		if r.Output != "" {
			fmt.Fprintf(w, "    its output ended:\n%s\n", indent(r.Output, "    │ "))
		}
		if r.Stderr != "" {
			fmt.Fprintf(w, "    its standard error ended:\n%s\n", indent(r.Stderr, "    │ "))
		}
		fmt.Fprintf(w, "The judge does not answer in the JSON form a loop reads: %s; a loop would take each of its verdicts as not met (checked in %s).\n", r.Reason, took)
		fmt.Fprintf(w, "  it must print one JSON object: {\"met\": true|false, \"missing\": [...], \"evidence\": [...]}\n")
		return
	}
	fmt.Fprintf(w, "The judge answers in the JSON form a loop reads (checked in %s).\n", took)
}

// WriteJSON prints the judge's report as one JSON object on one line.
func (r *JudgeReport) WriteJSON(w io.Writer) error {
	b, err := json.Marshal(struct {
		*JudgeReport
		Seconds float64 `json:"seconds"`
	}{r, r.Took.Round(time.Millisecond).Seconds()})
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}
