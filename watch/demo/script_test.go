package demo

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestParseScriptErrors(t *testing.T) {
	tests := []struct {
		script string
		want   string
	}{
		{"print ok\nfrobnicate", `line 2: "frobnicate": unknown step`},
		{"# c\n\nsleep soon", `line 3: "sleep soon"`},
		{"sleep -1s", "negative duration"},
		{"print bad \\q", `unknown escape \q`},
		{"print tail \\", "trailing backslash"},
		{"print \\x4", "two hex digits"},
		{"exit 300", "out of range"},
		{"exit x", `line 1: "exit x"`},
		{"flood lots", "bad size"},
		{"ignore USR1", `unknown signal "USR1"`},
		{"ignore", "needs signal names"},
		{"ready now", "takes no argument"},
		{"save", "needs a path"},
		{"hook", "needs an event name"},
		{"append", "needs a path and a line"},
		{"iter 2", "needs a step"},
		{"iter x print a", `line 1: "iter x print a"`},
		{"from 2 dance", "unknown step"},
	}
	for _, tt := range tests {
		_, err := ParseScript(tt.script)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ParseScript(%q) error = %v, want it to contain %q", tt.script, err, tt.want)
		}
	}
}

func TestParseScriptSkipsBlankAndComments(t *testing.T) {
	steps, err := ParseScript("# header\n\n   \n  print a\r\n#x\nexit 3\n")
	if err != nil {
		t.Fatal(err)
	}
	if len(steps) != 2 || steps[0].Name != "print" || steps[0].Line != 4 || steps[1].Name != "exit" || steps[1].n != 3 {
		t.Fatalf("steps = %+v", steps)
	}
	if _, err := ParseScript(DemoScript); err != nil {
		t.Fatalf("DemoScript: %v", err)
	}
}

func TestEscapes(t *testing.T) {
	tests := []struct{ in, want string }{
		{`plain`, "plain"},
		{`a\nb\tc`, "a\nb\tc"},
		{`\e]0;title\a`, "\x1b]0;title\x07"},
		{`\e[31mred\e[0m\r`, "\x1b[31mred\x1b[0m\r"},
		{`back\\slash \\n`, `back\slash \n`},
		{`\xff\x41`, "\xffA"},
		{`{{iteration}}`, "{{iteration}}"},
	}
	for _, tt := range tests {
		got, err := unescape(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("unescape(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

// run runs script with In and Out as OS pipes; each input is written after pausing its delay.
func run(t *testing.T, script, iteration string, inputs ...input) (int, string) {
	t.Helper()
	steps, err := ParseScript(script)
	if err != nil {
		t.Fatal(err)
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		for _, in := range inputs {
			time.Sleep(in.delay)
			if _, err := inW.WriteString(in.data); err != nil {
				t.Error(err)
			}
		}
		inW.Close()
	}()
	out := make(chan string)
	go func() {
		b, _ := io.ReadAll(outR)
		out <- string(b)
	}()
	a := &Agent{In: inR, Out: outW, Getenv: func(k string) string {
		if k == "RALPH_ITERATION" {
			return iteration
		}
		return ""
	}}
	code := a.Run(steps)
	outW.Close()
	inR.Close()
	return code, <-out
}

type input struct {
	delay time.Duration
	data  string
}

func now(s string) input { return input{data: s} }

func TestIterFrom(t *testing.T) {
	script := "print start {{iteration}}\niter 2 print two\nfrom 3 print three+\niter 1 exit 4\nprint end"
	tests := []struct {
		iteration string
		code      int
		want      string
	}{
		{"", 0, "start \nend\n"},
		{"1", 4, "start 1\n"},
		{"2", 0, "start 2\ntwo\nend\n"},
		{"3", 0, "start 3\nthree+\nend\n"},
		{"10", 0, "start 10\nthree+\nend\n"},
	}
	for _, tt := range tests {
		code, out := run(t, script, tt.iteration)
		out = strings.TrimSuffix(out, "\x1b[?2004l")
		if code != tt.code || out != tt.want {
			t.Errorf("iteration %q: code %d out %q; want %d %q", tt.iteration, code, out, tt.code, tt.want)
		}
	}
}

func TestRead(t *testing.T) {
	const pasted = "a;\n\tb $HOME #{pane_id} Enter C-c ünï"
	tests := []struct {
		name   string
		inputs []input
		code   int
		want   string
	}{
		{"bracketed paste", []input{now("\x1b[200~" + pasted + "\x1b[201~\r")}, 0, pasted},
		{"paste split across writes", []input{now("\x1b[20"), {10 * time.Millisecond, "0~a\r\nb\x1b[2"}, {10 * time.Millisecond, "01~"}, now("\r")}, 0, "a\r\nb"},
		{"empty enter ignored", []input{now("\r"), {20 * time.Millisecond, "\r"}, now("hi\r")}, 0, "hi"},
		{"lf submits", []input{now("typed\n")}, 0, "typed"},
		{"backspace removes a rune", []input{now("aü\x7fb\x08c\r")}, 0, "ac"},
		{"ctrl-u clears", []input{now("wrong\x15right\r")}, 0, "right"},
		{"arrow keys ignored", []input{now("a\x1b[D\x1bOAb\r")}, 0, "ab"},
		{"extra enter left for later", []input{now("one\r\r")}, 0, "one"},
		{"ctrl-c clears then exits", []input{now("x\x03\x03")}, 130, ""},
		{"eof", []input{now("partial")}, 1, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "p-{{iteration}}")
			code, out := run(t, "ready\nread\nsave "+path+"\nexit 0", "7", tt.inputs...)
			if code != tt.code {
				t.Fatalf("code %d, want %d; output %q", code, tt.code, out)
			}
			if !strings.HasPrefix(out, "\x1b[?2004h\r\x1b[2K❯ ") || !strings.HasSuffix(out, "\x1b[?2004l") {
				t.Errorf("output %q lacks bracketed paste on/off or prompt", out)
			}
			if code != 0 {
				return
			}
			got, err := os.ReadFile(strings.ReplaceAll(path, "{{iteration}}", "7"))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("saved %q, want %q", got, tt.want)
			}
		})
	}
}

func TestReadShowsInput(t *testing.T) {
	_, out := run(t, "ready\nread\necho\nredraw", "", now("\x1b[200~first\nsecond\nthird\x1b[201~"), input{20 * time.Millisecond, "\r"})
	for _, want := range []string{
		"\r\x1b[2K❯ first [+2 lines]",
		"\n> first\n  second\n  third\n",
		"\x1b[2J\x1b[H\n> first\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output %q lacks %q", out, want)
		}
	}
}

func TestDropInput(t *testing.T) {
	path := filepath.Join(t.TempDir(), "p")
	code, out := run(t, "drop-input 40ms\nready\nread\nsave "+path, "", now("junk\r"), input{100 * time.Millisecond, "good\r"})
	if code != 0 {
		t.Fatalf("code %d, output %q", code, out)
	}
	if got, _ := os.ReadFile(path); string(got) != "good" {
		t.Errorf("saved %q, want %q", got, "good")
	}
}

// key takes one key press, as a dialog does: Enter with nothing typed.
func TestKeyWaitsForOneKeyPress(t *testing.T) {
	code, out := run(t, "ready\nkey\nprint answered\nkey\nprint twice", "", now("\r"), input{50 * time.Millisecond, "\x1b"})
	if code != 0 || !strings.Contains(out, "answered\n") || !strings.Contains(out, "twice\n") {
		t.Errorf("code %d output %q", code, out)
	}
}

func TestReadBeforeReady(t *testing.T) {
	code, out := run(t, "read", "")
	if code != 1 || !strings.Contains(out, "line 1: read: read before ready") {
		t.Errorf("code %d output %q", code, out)
	}
}

func TestOutputSteps(t *testing.T) {
	tests := []struct {
		script string
		check  func(string) bool
	}{
		{"write a\\tb\nprint \\e[1mc", func(s string) bool { return strings.HasPrefix(s, "a\tb\x1b[1mc\n") }},
		{"flood 100", func(s string) bool {
			return strings.HasPrefix(s, strings.Repeat("x", 79)+"\n"+strings.Repeat("x", 19)+"\n\x1b")
		}},
		{"flood 200000", func(s string) bool { return len(s) == 200000+len("\x1b[?2004l") }},
		{"garbage 5000", func(s string) bool { return len(s) == 5000+len("\x1b[?2004l") }},
		{"alt\nnoalt", func(s string) bool { return strings.HasPrefix(s, "\x1b[?1049h\x1b[?1049l") }},
		{"spinner 200ms", func(s string) bool {
			return strings.Contains(s, "\r\x1b[2K· Working… (0.0s · esc to interrupt)") && strings.HasSuffix(s, "\r\x1b[2K✻ Worked for 0.2s\n\x1b[?2004l")
		}},
	}
	for _, tt := range tests {
		if _, out := run(t, tt.script, ""); !tt.check(out) {
			t.Errorf("%q: unexpected output %q", tt.script, out)
		}
	}
	_, a := run(t, "garbage 300", "")
	_, b := run(t, "garbage 300", "")
	if a != b {
		t.Error("garbage is not deterministic")
	}
}

func TestAppendWritesASessionFileLineByLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "session-{{iteration}}.jsonl")
	before := time.Now()
	code, _ := run(t, "append "+path+` {"i":{{iteration}},"at":"{{now}}"}`+"\nappend "+path+" second line", "7")
	data, err := os.ReadFile(strings.ReplaceAll(path, "{{iteration}}", "7"))
	if code != 0 || err != nil {
		t.Fatalf("exit %d, %v", code, err)
	}
	lines := strings.Split(string(data), "\n")
	if len(lines) != 3 || lines[1] != "second line" || lines[2] != "" || !strings.HasPrefix(lines[0], `{"i":7,"at":"`) {
		t.Fatalf("file:\n%s", data)
	}
	at, err := time.Parse(time.RFC3339Nano, strings.TrimSuffix(strings.TrimPrefix(lines[0], `{"i":7,"at":"`), `"}`))
	if err != nil || at.Before(before.Add(-time.Minute)) || at.After(time.Now().Add(time.Minute)) {
		t.Errorf("{{now}} gave %v (%v), want the time it was written", at, err)
	}
}

func TestSetSaysWhetherAVariableIsSetNeverItsValue(t *testing.T) {
	code, out := run(t, "print key {{set:RALPH_ITERATION}}, other {{set:NOT_SET_HERE}}", "7")
	if out = strings.TrimSuffix(out, "\x1b[?2004l"); code != 0 || out != "key set, other unset\n" {
		t.Errorf("code %d out %q, want \"key set, other unset\\n\"", code, out)
	}
}
