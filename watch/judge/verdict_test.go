package judge

import (
	"reflect"
	"strings"
	"testing"

	"github.com/ralph-tmux/ralph.tmux/watch/checks"
)

func TestParseTakesOneJSONObjectAndFailsClosed(t *testing.T) {
	tests := []struct {
		name string
		out  string
		want Verdict
	}{
		{"alone", `{"met": true, "missing": [], "evidence": ["tests pass"]}`,
			Verdict{Met: true, Evidence: []string{"tests pass"}}},
		{"alone, spaces around", "\n  {\"met\": false, \"missing\": [\"docs\"]}\n\n",
			Verdict{Missing: []string{"docs"}}},
		{"in a fenced block among prose", "Here is my verdict:\n```json\n{\"met\": false, \"missing\": [\"a test\"], \"evidence\": []}\n```\nThanks.",
			Verdict{Missing: []string{"a test"}}},
		{"the fenced block over a later object", "```\n{\"met\": true}\n```\nnot {\"met\": false}",
			Verdict{Met: true}},
		{"the last object of the output", `I read {"met": true} as an example. My answer: {"met": false, "missing": ["the README"]}`,
			Verdict{Missing: []string{"the README"}}},
		{"braces inside strings do not count", `answer: {"met": false, "missing": ["a } and a {"], "evidence": ["x"]}`,
			Verdict{Missing: []string{"a } and a {"}, Evidence: []string{"x"}}},
		{"an inner object is never the answer", `{"wrapper": {"met": true}}`,
			Verdict{Reason: ReasonInvalidJSON}},
		{"met true with missing items is not met", `{"met": true, "missing": ["error handling"]}`,
			Verdict{Missing: []string{"error handling"}, Reason: ReasonMetMissing}},
		{"blank missing items are none", `{"met": true, "missing": ["  "], "evidence": ["ok"]}`,
			Verdict{Met: true, Evidence: []string{"ok"}}},
		{"prose", "The goal looks met to me.", Verdict{Reason: ReasonNoJSON}},
		{"nothing", "", Verdict{Reason: ReasonNoJSON}},
		{"a broken object", `{"met": true, "missing": [}`, Verdict{Reason: ReasonInvalidJSON}},
		{"an unclosed object", `my verdict: {"met": true`, Verdict{Reason: ReasonInvalidJSON}},
		{"met as a string", `{"met": "true"}`, Verdict{Reason: ReasonInvalidJSON}},
		{"no met", `{"missing": []}`, Verdict{Reason: ReasonInvalidJSON}},
		{"missing not a list of strings", `{"met": false, "missing": [1]}`, Verdict{Reason: ReasonInvalidJSON}},
		{"an array", `[{"met": true}]`, Verdict{Met: true}},
		{"the last object is not a verdict", `{"met": true} {"note": "done"}`, Verdict{Reason: ReasonInvalidJSON}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Parse(tc.out); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Parse(%q) = %+v, want %+v", tc.out, got, tc.want)
			}
		})
	}
}

func TestFromAnswerTakesNoOutputOfAJudgeThatFailedOrRanOver(t *testing.T) {
	met := `{"met": true}`
	tests := []struct {
		a    Answer
		want string
	}{
		{Answer{Out: met}, ""},
		{Answer{Out: met, Code: 1}, "exit 1"},
		{Answer{Out: met, Code: 124, TimedOut: true}, ReasonTimeout},
		{Answer{Out: met, Code: -1, Canceled: true}, ReasonCanceled},
		{Answer{Out: "sure, done"}, ReasonNoJSON},
	}
	for _, tc := range tests {
		v := FromAnswer(tc.a)
		if v.Met != (tc.want == "") || v.Reason != tc.want {
			t.Errorf("FromAnswer(%+v) = %+v, want reason %q", tc.a, v, tc.want)
		}
	}
}

func TestFromChecksIsNotMetForAFailingCheckAndAsksTheJudgeOtherwise(t *testing.T) {
	pass := checks.CheckRun{Check: checks.Check{Command: "go vet ./..."}}
	fail := checks.CheckRun{Check: checks.Check{Command: "sh check.sh"}, Code: 1}
	slow := checks.CheckRun{Check: checks.Check{Command: "make test"}, Code: 124, TimedOut: true}
	if v, failed := FromChecks([]checks.CheckRun{pass}); failed || v.Met {
		t.Errorf("all passed: %+v, failed %v; want the judge asked", v, failed)
	}
	if _, failed := FromChecks(nil); failed {
		t.Error("no checks: failed")
	}
	v, failed := FromChecks([]checks.CheckRun{pass, fail, slow})
	if !failed || v.Met {
		t.Fatalf("a failing check: %+v, failed %v", v, failed)
	}
	want := `check "sh check.sh" failed with exit code 1; check "make test" timed out`
	if v.Why() != want {
		t.Errorf("reason %q, want %q", v.Why(), want)
	}
}

func TestLogMessageSaysMetOrWhyNot(t *testing.T) {
	for _, tc := range []struct {
		v    Verdict
		want string
	}{
		{Verdict{Met: true, Evidence: []string{"x"}}, "iteration 4 met"},
		{Verdict{Reason: "exit 1"}, "iteration 4 not met: exit 1"},
		{Verdict{Reason: ReasonTimeout}, "iteration 4 not met: timeout"},
		{Verdict{Missing: []string{"a test of\nthe parser", "docs"}}, "iteration 4 not met: a test of the parser; docs"},
		{Verdict{Missing: []string{"docs"}, Reason: ReasonMetMissing}, "iteration 4 not met: met with missing items: docs"},
		{Verdict{}, "iteration 4 not met: nothing named missing"},
	} {
		if got := tc.v.LogMessage(4); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.v, got, tc.want)
		}
	}
}

// The parser never calls an answer met unless the output holds a "met"
// key set true and names nothing missing; it never panics.
func FuzzParseVerdict(f *testing.F) {
	for _, s := range []string{
		`{"met": true, "missing": [], "evidence": ["x"]}`,
		"```json\n{\"met\": false, \"missing\": [\"a\"]}\n```",
		`prose {"met": true} then {"met": false, "missing": ["b"]}`,
		`{"met": true, "missing": ["c"]}`,
		`{"a": "}\"{"}`, "{", "}", "",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, out string) {
		v := Parse(out)
		if v.Met && (v.Reason != "" || len(v.Missing) > 0) {
			t.Errorf("met with reason %q, missing %q", v.Reason, v.Missing)
		}
		if v.Met && (!strings.Contains(out, `"met"`) || !strings.Contains(out, "true")) {
			t.Errorf("met from %q, which says no met true", out)
		}
		if !v.Met && v.Reason == "" && len(v.Missing) == 0 && !strings.Contains(out, "false") {
			t.Errorf("not met with no reason and nothing missing from %q", out)
		}
	})
}

// A judge in Claude Code's JSON form is judged by its "result": the
// verdict stands there, its use beside it.
func TestAJudgesVerdictInClaudeCodesJSONFormIsItsResult(t *testing.T) {
	out := `{"type":"result","num_turns":1,"result":"` + "```json\\n{\\\"met\\\": false, \\\"missing\\\": [\\\"tests\\\"]}\\n```" + `","total_cost_usd":0.02,"usage":{"input_tokens":10,"output_tokens":2}}`
	a := Answer{Out: out}
	v, spent := FromAnswer(a), a.Spent(nil)
	if v.Met || strings.Join(v.Missing, ",") != "tests" || v.Reason != "" {
		t.Errorf("verdict = %+v, want not met, missing tests", v)
	}
	if spent.Reported != 1 || spent.Usage.Sum() != 12 || spent.CostUSD == nil || *spent.CostUSD != 0.02 {
		t.Errorf("spent = %+v", spent)
	}
	if v := FromAnswer(Answer{Out: out, Code: 1}); v.Reason != "exit 1" {
		t.Errorf("a non-zero exit in the JSON form: %+v", v)
	}
}
