package judge

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/ralph-tmux/ralph.tmux/watch/checks"
	"github.com/ralph-tmux/ralph.tmux/watch/jsontext"
	"github.com/ralph-tmux/ralph.tmux/watch/receipt"
)

// Why a verdict is "not met" although the judge did not say so itself.
const (
	ReasonNoJSON      = "no JSON"      // the judge's output holds no JSON object
	ReasonInvalidJSON = "invalid JSON" // it holds one, not of the verdict's form
	ReasonTimeout     = "timeout"      // the judge ran over --judge-timeout
	ReasonCanceled    = "canceled"     // the loop stopped while the judge ran
	// ReasonMetMissing: met true with missing items is not met.
	ReasonMetMissing = "met with missing items"
)

// Log tags of goal mode's lines in the iterations log.
const (
	TagJudge   = "JUDGE"
	TagProtect = "PROTECT"
)

// Verdict is what came of asking whether the goal is met.
type Verdict struct {
	Met      bool     `json:"met"`
	Missing  []string `json:"missing"`
	Evidence []string `json:"evidence"`
	// Reason is why the verdict is not met when the judge's own answer was
	// not taken or not asked for: a failing check, "no JSON", "invalid
	// JSON", "exit N", "timeout", "met with missing items".
	Reason string `json:"reason,omitempty"`
}

// Why is what a not-met verdict's log line says: its reason, else the
// missing items; "" for a met one.
func (v Verdict) Why() string {
	switch {
	case v.Met:
		return ""
	case v.Reason == ReasonMetMissing:
		return v.Reason + ": " + strings.Join(v.Missing, "; ")
	case v.Reason != "":
		return v.Reason
	case len(v.Missing) > 0:
		return strings.Join(v.Missing, "; ")
	}
	return nothingNamed
}

// nothingNamed is what Why says of a not-met verdict with no reason and
// nothing named missing.
const nothingNamed = "nothing named missing"

// Recorded is a verdict read back from the loop's record, which keeps
// whether it was met, its missing items and its Why.
func Recorded(met bool, missing []string, why string) Verdict {
	v := Verdict{Met: met, Missing: missing}
	if !met && why != nothingNamed {
		v.Reason = why
	}
	return v
}

// LogMessage is the verdict's [JUDGE] line after the tag: "iteration N
// met" or "iteration N not met: REASON".
func (v Verdict) LogMessage(iteration int) string {
	if v.Met {
		return fmt.Sprintf("iteration %d met", iteration)
	}
	return fmt.Sprintf("iteration %d not met: %s", iteration, oneLine(v.Why()))
}

// oneLine keeps a log line one line.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// notMet is a verdict not met for reason.
func notMet(reason string) Verdict { return Verdict{Reason: reason} }

// FromChecks is the verdict the checks give before any judge is asked: not
// met, naming the first failing check, when one failed; ok false when all
// passed and the judge must be asked.
func FromChecks(runs []checks.CheckRun) (v Verdict, failed bool) {
	for _, r := range runs {
		if r.Passed() {
			continue
		}
		what := fmt.Sprintf("check %q failed with exit code %d", r.Command, r.Code)
		if r.TimedOut {
			what = fmt.Sprintf("check %q timed out", r.Command)
		}
		v.Missing = append(v.Missing, what)
	}
	if len(v.Missing) == 0 {
		return Verdict{}, false
	}
	v.Reason = strings.Join(v.Missing, "; ")
	return v, true
}

// FromAnswer reads the verdict of a judge's run: a timeout, a stop or a
// non-zero exit is not met whatever it printed; else its output's verdict
// (in a one-shot agent's JSON form, its "result" text's: see Spent).
func FromAnswer(a Answer) Verdict {
	switch {
	case a.TimedOut:
		return notMet(ReasonTimeout)
	case a.Canceled:
		return notMet(ReasonCanceled)
	case a.Code != 0:
		return notMet(fmt.Sprintf("exit %d", a.Code))
	}
	answer, _ := receipt.JudgeCall(a.Out, nil)
	return Parse(answer)
}

// Parse reads a judge's answer, failing closed: the output must be one
// JSON object {"met": bool, "missing": [...], "evidence": [...]}, alone,
// in a fenced block, or as the last JSON object of the output. Anything
// else is not met, with the reason; so is met true with missing items.
func Parse(out string) Verdict {
	raw, reason := answerObject(out)
	if reason != "" {
		return notMet(reason)
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return notMet(ReasonInvalidJSON)
	}
	var v Verdict
	met, ok := fields["met"]
	if !ok || !isBool(met) {
		return notMet(ReasonInvalidJSON)
	}
	_ = json.Unmarshal(met, &v.Met)
	for name, list := range map[string]*[]string{"missing": &v.Missing, "evidence": &v.Evidence} {
		raw, ok := fields[name]
		if !ok || string(raw) == "null" {
			continue
		}
		if err := json.Unmarshal(raw, list); err != nil {
			return notMet(ReasonInvalidJSON)
		}
	}
	v.Missing, v.Evidence = trimmed(v.Missing), trimmed(v.Evidence)
	if v.Met && len(v.Missing) > 0 {
		v.Met, v.Reason = false, ReasonMetMissing
	}
	return v
}

// isBool reports whether a JSON value is true or false.
func isBool(raw json.RawMessage) bool {
	s := string(bytes.TrimSpace(raw))
	return s == "true" || s == "false"
}

// trimmed is items with their outer spaces gone and the empty ones left
// out ("" never stands for a missing part); nil for none.
func trimmed(items []string) []string {
	var out []string
	for _, s := range items {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// answerObject finds the judge's JSON object in its output: the output
// itself when it is one, else the last fenced block that is one, else
// the last balanced {...} of the output, which must be JSON.
func answerObject(out string) (json.RawMessage, string) {
	whole := strings.TrimSpace(out)
	if strings.HasPrefix(whole, "{") && json.Valid([]byte(whole)) {
		return json.RawMessage(whole), ""
	}
	if block, ok := lastFencedObject(out); ok {
		return block, ""
	}
	spans := objectSpans(out)
	if len(spans) == 0 {
		if strings.Contains(out, "{") {
			return nil, ReasonInvalidJSON
		}
		return nil, ReasonNoJSON
	}
	last := out[spans[len(spans)-1][0]:spans[len(spans)-1][1]]
	if !json.Valid([]byte(last)) {
		return nil, ReasonInvalidJSON
	}
	return json.RawMessage(last), ""
}

// lastFencedObject is the body of the last ``` fenced block of out that is
// one JSON object.
func lastFencedObject(out string) (json.RawMessage, bool) {
	var found json.RawMessage
	lines := strings.Split(out, "\n")
	for i := 0; i < len(lines); i++ {
		if !strings.HasPrefix(strings.TrimSpace(lines[i]), "```") {
			continue
		}
		end := i + 1
		for end < len(lines) && strings.TrimSpace(lines[end]) != "```" {
			end++
		}
		if end == len(lines) {
			break // never closed
		}
		body := strings.TrimSpace(strings.Join(lines[i+1:end], "\n"))
		if strings.HasPrefix(body, "{") && json.Valid([]byte(body)) {
			found = json.RawMessage(body)
		}
		i = end
	}
	return found, found != nil
}

// objectSpans are the start and end of every outermost balanced {...} of
// out, braces inside JSON strings not counted.
func objectSpans(out string) [][2]int {
	var spans [][2]int
	var text jsontext.Strings
	depth, start := 0, 0
	for i := 0; i < len(out); i++ {
		c := out[i]
		switch {
		case depth == 0:
			if c == '{' {
				depth, start = 1, i
			}
		case text.Step(c): // a brace in a string is no brace
		case c == '{':
			depth++
		case c == '}':
			if depth--; depth == 0 {
				spans = append(spans, [2]int{start, i + 1})
			}
		}
	}
	return spans
}
