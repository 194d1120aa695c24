package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/doctor"
	"github.com/ralph-tmux/ralph.tmux/watch/fakeapi"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux/tmuxtest"
)

// fakeClaude draws Claude Code's markers (the idle footer, "esc to
// interrupt" while it works), calls its Stop hook, and answers as doctor's
// fake model would: in the hook run, turn 1 without the done token and turn 2
// with it; in the screen run, turn 1 plain and turn 2 a usage limit. Its
// echo of the prompt holds the token too. It works 2 s: doctor looks at the
// screen every 500 ms, and on a busy machine a shorter while went unseen.
const fakeClaudeTurn = `print   ? for shortcuts
ready
read
echo
spinner 2s
`

var fakeClaudeRuns = map[string]string{
	"hook": fakeClaudeTurn + `iter 1 print ● Still working on it.
iter 2 print ● All tasks complete.
iter 2 print RALPH_DONE
stop-hook
print   ? for shortcuts
ready
quiet
`,
	"screen": fakeClaudeTurn + `iter 1 print ● Still working on it.
iter 2 print   ⎿  You've hit your limit · resets 8pm (UTC)
print   ? for shortcuts
ready
quiet
`,
}

// fakeClaude writes a program that runs the fake agent with the script of
// the doctor run it is started in ($RALPH_DOCTOR_RUN), and answers --version.
func fakeClaude(t *testing.T, runs map[string]string) string {
	t.Helper()
	agent := tmuxtest.Build(t, "testdata/fakeagent")
	dir := t.TempDir()
	for name, script := range runs {
		if err := os.WriteFile(filepath.Join(dir, name+".script"), []byte(script), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Named as the agent's own program: a wrapper of another name gets no hooks.
	if err := os.Mkdir(filepath.Join(dir, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "bin", "claude")
	wrapper := "#!/bin/sh\n[ \"$1\" = --version ] && { echo '9.9.9 (Fake Claude)'; exit 0; }\n" +
		"exec '" + agent + "' \"$@\" \"" + dir + "/$RALPH_DOCTOR_RUN.script\"\n"
	if err := os.WriteFile(path, []byte(wrapper), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestDoctorPassesAnAgentThatGivesEverySignal(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	agent := fakeClaude(t, fakeClaudeRuns)
	code, out, errOut := c.run(nil, "doctor", "--agent", "claude", "--", agent)
	if code != 0 {
		t.Errorf("exit %d, want 0\n%s%s", code, out, errOut)
	}
	for _, want := range []string{
		"✓ agent                             claude 9.9.9 (Fake Claude) · " + agent,
		"✓ starts without a dialog",
		"✓ ready                             by screen (ready pattern)",
		"✓ paste lands",
		"✓ submit taken",
		"✓ busy seen",
		"✓ turn end by hook",
		"✓ turn end by screen",
		"✓ done token after the prompt only  not in turn 1's echo; in turn 2's reply",
		"✓ usage limit recognised            You've hit your limit · resets 8pm (UTC)",
		"– prompt reaches the model intact   the agent made no request to the fake API",
		"A loop of claude would work",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "Screens and logs") {
		t.Errorf("a passing check kept its folder:\n%s", out)
	}
	// The private server is gone, its socket too (TMUX_TMPDIR is the test's).
	if left, _ := filepath.Glob(filepath.Join(c.srv.Dir, "tmp", "tmux-*", "ralph-doctor-*")); len(left) > 0 {
		t.Errorf("doctor left %q", left)
	}

	code, out, _ = c.run(nil, "doctor", "--markdown", "--agent", "claude", "--", agent)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || len(lines) != 3 || !strings.HasPrefix(lines[0], "| Agent | Version | starts without a dialog |") ||
		!strings.HasPrefix(lines[2], "| claude | 9.9.9 (Fake Claude) | ✓ | ✓ ") {
		t.Errorf("--markdown: exit %d\n%s", code, out)
	}
}

// An agent whose echo is all the done pattern sees, and that never shows
// a limit: the loop would stop on its own prompt, and doctor says so.
func TestDoctorFailsAnAgentWhoseEchoedPromptStopsTheLoop(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	runs := map[string]string{
		"hook":   strings.Replace(fakeClaudeRuns["hook"], "echo\n", "echo\nprint RALPH_DONE (from the prompt)\n", 1),
		"screen": fakeClaudeRuns["screen"],
	}
	code, out, _ := c.run(nil, "doctor", "--json", "--agent", "claude", "--", fakeClaude(t, runs))
	if code != 1 {
		t.Errorf("exit %d, want 1\n%s", code, out)
	}
	for _, want := range []string{`"key":"done","title":"done token after the prompt only","status":"fail"`,
		`"works":false`, `--check-done-continuous=false`, `"kept":"`} {
		if !strings.Contains(out, want) {
			t.Errorf("json lacks %q:\n%s", want, out)
		}
	}
	if i := strings.Index(out, `"kept":"`); i >= 0 {
		dir, _, _ := strings.Cut(out[i+len(`"kept":"`):], `"`)
		if _, err := os.Stat(filepath.Join(dir, "hook", "loop.log")); err != nil {
			t.Errorf("kept folder lacks the loop's log: %v", err)
		}
		_ = os.RemoveAll(dir)
	}
}

func TestDoctorRefusesBadInputWithExit2(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"doctor", "--agent", "nope"}, `ralph-watch: error: doctor: unknown agent "nope": use aider, amp, claude`},
		{[]string{"doctor", "--agent", "claude", "--", "/nonexistent/claude"}, "ralph-watch: error: doctor: /nonexistent/claude: not found (install it"},
		{[]string{"doctor", "--agent", "generic"}, "ralph-watch: error: doctor: the generic profile has no program of its own"},
		{[]string{"doctor", "--json", "--markdown", "--agent", "claude"}, "do not go together"},
		{[]string{"doctor", "--ready-pattern", "(", "--agent", "claude"}, "ralph-watch: error: invalid --ready-pattern"},
		{[]string{"doctor", "--bogus"}, "ralph-watch: error: flag provided but not defined: --bogus (see 'ralph-watch doctor -h')"},
	} {
		code, out, errOut := c.run([]string{"PATH=/usr/bin:/bin"}, tc.args...)
		if code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%q: exit %d, stderr %q, want 2 and %q (stdout %q)", tc.args, code, errOut, tc.want, out)
		}
	}
	code, _, errOut := c.run([]string{"PATH=/usr/bin:/bin"}, "doctor")
	if code != 2 || !strings.Contains(errOut, "none of claude, codex, gemini, opencode, copilot is on PATH") {
		t.Errorf("doctor with no agent on PATH: exit %d, %q", code, errOut)
	}
}

// The real agents the tests drive (tmuxtest.Agent: $RALPH_TEST_CLAUDE, …;
// else their program on PATH), each checked by doctor offline: a loop of
// each must work. One doctor after another (a test waiting for the agents' places would hold
// one of go test's -parallel places all along), each holding two places
// among the real agents all the tests run at once: its two loops run together.
func TestDoctorPassesEachRealAgent(t *testing.T) {
	t.Parallel()
	for _, agent := range []string{"claude", "codex", "gemini", "opencode", "copilot"} {
		t.Run(agent, func(t *testing.T) {
			path := tmuxtest.Agent(t, agent)
			tmuxtest.HoldAgentPlaces(t, 2)
			c := newCLI(t)
			// Doctor bounds each of its loops (150 s): a busy machine is no failure.
			code, out, errOut := c.runWithin(4*time.Minute, nil, "doctor", "--agent", agent, "--", path)
			t.Logf("ralph-watch doctor --agent %s -- %s\n%s%s", agent, path, out, errOut)
			if code != 0 {
				t.Errorf("exit %d, want 0 (a loop of %s would work)", code, agent)
			}
		})
	}
}

// personsWrapper writes ~/bin/claude as people write it: a shell script that
// gives the agent its own HOME, API key and API address, then execs it.
func personsWrapper(t *testing.T, home, url, agent string) string {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "claude")
	script := "#!/bin/sh\nHOME='" + home + "'\nANTHROPIC_API_KEY=" + personsKey + "\nANTHROPIC_BASE_URL='" + url + "'\n" +
		"export HOME ANTHROPIC_API_KEY ANTHROPIC_BASE_URL\nexec '" + agent + "' \"$@\"\n"
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

const personsKey = "sk-ant-persons-own-key-0123456789abcdefghij"

// checkBypassReport wants doctor to say that the wrapper replaced its
// sandbox, with what, and where the agent's settings really are; and to
// say nothing of a loop, nor any line that passes or fails a signal.
func checkBypassReport(t *testing.T, code int, out, home, url string) {
	t.Helper()
	if code != 1 {
		t.Errorf("exit %d, want 1 (not checked)", code)
	}
	for _, want := range []string{
		"! sandbox", "gives the agent its own HOME and model API: HOME=" + home + ", ANTHROPIC_API_KEY (its own), ANTHROPIC_BASE_URL=" + url,
		"so doctor ended it before typing anything", "Doctor could not check claude through ",
		"its own settings: " + filepath.Join(home, ".claude.json"),
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	for _, never := range []string{"✗", "✓ paste", "✓ submit", "would not work", "would work", "~/.claude.json", personsKey} {
		if strings.Contains(out, never) {
			t.Errorf("output holds %q:\n%s", never, out)
		}
	}
}

// Tried as a new user would: doctor through a wrapper that sets its own
// HOME and API (the fake agent stands in for Claude Code).
func TestDoctorSaysAWrapperReplacedItsSandbox(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	home, url := t.TempDir(), "http://127.0.0.1:9"
	wrapper := personsWrapper(t, home, url, fakeClaude(t, fakeClaudeRuns))
	code, out, errOut := c.run(nil, "doctor", "--agent", "claude", "--", wrapper)
	checkBypassReport(t, code, out+errOut, home, url)

	// The popup's d: doctor with no agent named, the wrapper first on PATH as claude.
	code, out, errOut = c.run([]string{"PATH=" + filepath.Dir(wrapper) + ":/usr/bin:/bin"}, "doctor")
	checkBypassReport(t, code, out+errOut, home, url)
	if !strings.Contains(out, "Doctor could not check claude through "+wrapper+" ") {
		t.Errorf("the wrapper found on PATH is not named:\n%s", out)
	}

	code, out, _ = c.run(nil, "doctor", "--json", "--agent", "claude", "--", wrapper)
	var rep struct {
		Works  bool `json:"works"`
		Bypass struct {
			Changes []struct{ Name, Value string } `json:"changes"`
			Config  string                         `json:"config"`
		} `json:"bypass"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != 1 || rep.Works || len(rep.Bypass.Changes) != 3 ||
		rep.Bypass.Config != filepath.Join(home, ".claude.json") || strings.Contains(out, personsKey) {
		t.Errorf("--json: exit %d, %v\n%s", code, err, out)
	}
}

// The same with the real Claude Code (pinned), whose wrapper's API is a fake
// of its own: doctor ends the agent before any prompt reaches that API.
func TestDoctorSaysARealClaudesWrapperReplacedItsSandbox(t *testing.T) {
	t.Parallel()
	claude := tmuxtest.Agent(t, "claude")
	c := newCLI(t)
	api, err := fakeapi.Start(fakeapi.Options{Reply: "Hello from the wrapper's own API."})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = api.Close() }()
	home := t.TempDir() // set up as the person's: onboarding done, their key approved
	config, _ := json.Marshal(map[string]any{"hasCompletedOnboarding": true, "theme": "dark",
		"customApiKeyResponses": map[string]any{"approved": []string{personsKey[len(personsKey)-20:]}, "rejected": []string{}}})
	if err := os.WriteFile(filepath.Join(home, ".claude.json"), config, 0o600); err != nil {
		t.Fatal(err)
	}
	began := time.Now()
	code, out, errOut := c.run(nil, "doctor", "--agent", "claude", "--", personsWrapper(t, home, api.URL, claude))
	t.Logf("%s%s", out, errOut)
	checkBypassReport(t, code, out+errOut, home, api.URL)
	if !strings.Contains(out, "to check the agent itself: ralph-watch doctor --agent claude -- "+claude) {
		t.Errorf("no advice to check the program the wrapper starts:\n%s", out)
	}
	if got := api.Prompts(); len(got) > 0 {
		t.Errorf("the wrapper's API received prompts %q", got)
	}
	if took := time.Since(began); took > 20*time.Second {
		t.Errorf("doctor took %s to see the wrapper", took)
	}
}

// doctor --judge runs a goal loop's judge once on a small judge's input
// and reads its answer as the loop would: exit 0 when it answers in the
// JSON form, 1 saying why when not, 2 for a usage error.
func TestDoctorJudgeChecksTheJudgesAnswerForm(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	size := len(doctor.JudgeEvidence().Input()) // the loop's own input of the fixed evidence
	for _, tc := range []struct {
		name, judge string
		code        int
		want        []string
	}{
		{"JSON", `cat > /dev/null; echo '{"met": true, "missing": [], "evidence": ["hello.txt says hello"]}'`, 0,
			[]string{"(run as given)\n", fmt.Sprintf("✓ judge runs           exit 0, on a %d-byte input\n", size), "✓ answer               JSON, met; evidence: hello.txt says hello\n",
				"The judge answers in the JSON form a loop reads"}},
		{"prose", `echo 'It looks done to me.'`, 1,
			[]string{"✗ answer               no JSON\n", "    │ It looks done to me.\n", "The judge does not answer in the JSON form a loop reads: no JSON;"}},
		{"exit 1", `echo '{"met": true}'; exit 1`, 1,
			[]string{"✗ judge runs           exit 1\n", "· answer               not read: exit 1 is not met whatever it printed\n"}},
	} {
		code, out, errOut := c.run(nil, "doctor", "--judge", tc.judge, "--judge-timeout", "20")
		if code != tc.code {
			t.Errorf("%s: exit %d, want %d\n%s%s", tc.name, code, tc.code, out, errOut)
		}
		for _, w := range tc.want {
			if !strings.Contains(out, w) {
				t.Errorf("%s: the output lacks %q:\n%s", tc.name, w, out)
			}
		}
	}
	code, out, _ := c.run(nil, "doctor", "--json", "--judge", "echo nothing")
	var rep struct {
		Works  bool   `json:"works"`
		Reason string `json:"reason"`
		Input  int    `json:"input_bytes"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != 1 || rep.Works || rep.Reason != "no JSON" || rep.Input != size {
		t.Errorf("--json: exit %d, %+v, %v\n%s", code, rep, err, out)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"doctor", "--judge", " "}, "ralph-watch: error: doctor: --judge needs a command\n"},
		{[]string{"doctor", "--judge", "cat", "--judge-prompt-mode", "type"}, `invalid --judge-prompt-mode "type": use stdin or arg`},
		{[]string{"doctor", "--judge", "cat", "--judge-timeout", "0"}, "--judge-timeout must be more than 0"},
		{[]string{"doctor", "--judge", "cat", "--markdown"}, "--judge and --markdown do not go together"},
	} {
		if code, _, errOut := c.run(nil, tc.args...); code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%q: exit %d, %q; want 2 and %q", tc.args, code, errOut, tc.want)
		}
	}
}

// The real Claude Code as a judge (claude -p), offline: doctor points it at
// the fake model API, which answers the judge's input with a JSON verdict.
func TestDoctorJudgeOfRealClaudeCodeAnswersThroughTheFakeAPI(t *testing.T) {
	t.Parallel()
	claude := tmuxtest.Agent(t, "claude")
	tmuxtest.HoldAgentPlaces(t, 1)
	c := newCLI(t)
	for _, form := range []string{" -p", " -p --output-format json"} { // the default judge for claude is the second
		code, out, errOut := c.runWithin(3*time.Minute, nil, "doctor", "--judge", claude+form)
		t.Logf("ralph-watch doctor --judge '%s%s'\n%s%s", claude, form, out, errOut)
		if code != 0 {
			t.Errorf("%s: exit %d, want 0", form, code)
		}
		for _, want := range []string{"(against the fake model API)\n", "✓ input reaches model  the fake model API received the judge's input intact\n",
			"✓ answer               JSON, met; evidence: hello.txt holds hello, as the goal asks (doctor's fake model)\n"} {
			if !strings.Contains(out, want) {
				t.Errorf("%s: the output lacks %q", form, want)
			}
		}
	}
}
