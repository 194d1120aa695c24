package prompt

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func writeFile(t *testing.T, path string, data []byte, mode os.FileMode) {
	t.Helper()
	if err := os.WriteFile(path, data, mode); err != nil {
		t.Fatal(err)
	}
}

func TestReadPromptRefusesWhatIsNotAPromptFile(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name        string
		setup       func(t *testing.T) string // returns the path to read
		wantErr     string                    // the whole message
		wantMissing bool
	}{
		{"a missing file is 'not found'",
			func(t *testing.T) string { return filepath.Join(dir, "nope.md") },
			"prompt file not found: " + filepath.Join(dir, "nope.md"), true},
		{"a file in a missing folder is 'not found'",
			func(t *testing.T) string { return filepath.Join(dir, "no-such-dir", "prompt.md") },
			"prompt file not found: " + filepath.Join(dir, "no-such-dir", "prompt.md"), true},
		{"a directory is refused as a directory",
			func(t *testing.T) string {
				p := filepath.Join(dir, "adir")
				if err := os.Mkdir(p, 0o755); err != nil {
					t.Fatal(err)
				}
				return p
			},
			"cannot read prompt file: " + filepath.Join(dir, "adir") + " (is a directory)", false},
		{"a FIFO is refused as not a regular file",
			func(t *testing.T) string {
				p := filepath.Join(dir, "fifo")
				if err := syscall.Mkfifo(p, 0o600); err != nil {
					t.Skipf("mkfifo: %v", err)
				}
				return p
			},
			"cannot read prompt file: " + filepath.Join(dir, "fifo") + " (not a regular file)", false},
		{"a character device is refused as not a regular file",
			func(t *testing.T) string { return "/dev/null" },
			"cannot read prompt file: /dev/null (not a regular file)", false},
		{"a binary file (one with NUL bytes) is refused",
			func(t *testing.T) string {
				p := filepath.Join(dir, "binary.md")
				writeFile(t, p, []byte("do\x00it"), 0o644)
				return p
			},
			"cannot read prompt file: " + filepath.Join(dir, "binary.md") + " (binary: holds NUL bytes)", false},
		{"a file over MaxSize is refused",
			func(t *testing.T) string {
				p := filepath.Join(dir, "huge.md")
				writeFile(t, p, nil, 0o644)
				if err := os.Truncate(p, MaxSize+1); err != nil { // sparse: no 8 MiB written
					t.Fatal(err)
				}
				return p
			},
			"cannot read prompt file: " + filepath.Join(dir, "huge.md") + " (larger than 8 MiB)", false},
		{"a symlink to a directory is refused as a directory",
			func(t *testing.T) string {
				p := filepath.Join(dir, "link-to-dir")
				if err := os.Symlink(dir, p); err != nil {
					t.Fatal(err)
				}
				return p
			},
			"cannot read prompt file: " + filepath.Join(dir, "link-to-dir") + " (is a directory)", false},
		{"a dangling symlink is 'not found'",
			func(t *testing.T) string {
				p := filepath.Join(dir, "dangling")
				if err := os.Symlink(filepath.Join(dir, "gone"), p); err != nil {
					t.Fatal(err)
				}
				return p
			},
			"prompt file not found: " + filepath.Join(dir, "dangling"), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := tt.setup(t)
			type result struct {
				text string
				err  error
			}
			done := make(chan result, 1)
			go func() {
				text, err := Read(path)
				done <- result{text, err}
			}()
			var r result
			select {
			case r = <-done:
			case <-time.After(10 * time.Second): // a guard only: Read must return at once
				t.Fatalf("Read(%q) blocked", path)
			}
			if r.err == nil {
				t.Fatalf("Read(%q) = %q, nil; want error %q", path, r.text, tt.wantErr)
			}
			if r.err.Error() != tt.wantErr {
				t.Errorf("error = %q, want %q", r.err, tt.wantErr)
			}
			var pe *FileError
			if !errors.As(r.err, &pe) {
				t.Fatalf("error %T is not a *FileError", r.err)
			}
			if pe.Missing != tt.wantMissing || pe.Path != path {
				t.Errorf("FileError = %+v, want Missing %v and Path %q", pe, tt.wantMissing, path)
			}
		})
	}
}

func TestReadPromptRefusesAnUnreadableFile(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads a chmod 000 file anyway")
	}
	p := filepath.Join(t.TempDir(), "secret.md")
	writeFile(t, p, []byte("hidden"), 0o000)
	_, err := Read(p)
	want := "cannot read prompt file: " + p + " (permission denied)"
	if err == nil || err.Error() != want {
		t.Errorf("Read = %v, want %q", err, want)
	}
}

func TestReadPromptReadsRegularFilesByteForByte(t *testing.T) {
	dir := t.TempDir()
	var big strings.Builder
	for big.Len() < 100<<10 {
		big.WriteString("Ünïcödé ✓ 日本語 🎉 line with\ttab and CRLF\r\n")
	}
	tests := []struct {
		name string
		data []byte
	}{
		{"an empty file is an empty prompt", nil},
		{"a one-line prompt", []byte("Do the work.\n")},
		{"a 100 KB unicode prompt", []byte(big.String())},
		{"a file of exactly MaxSize is accepted", bytes.Repeat([]byte("x"), MaxSize)},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(dir, "prompt"+string(rune('a'+i))+".md")
			writeFile(t, p, tt.data, 0o644)
			got, err := Read(p)
			if err != nil {
				t.Fatalf("Read: %v", err)
			}
			if got != string(tt.data) {
				t.Errorf("Read returned %d bytes, want the %d bytes written", len(got), len(tt.data))
			}
		})
	}
}

func TestReadPromptFollowsASymlinkToAFile(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "real.md")
	writeFile(t, target, []byte("via link"), 0o644)
	link := filepath.Join(dir, "PROMPT.md")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if got, err := Read(link); err != nil || got != "via link" {
		t.Errorf("Read(link) = %q, %v; want %q", got, err, "via link")
	}
}

func TestRenderFillsInKnownPlaceholdersOnly(t *testing.T) {
	vars := Vars{Iteration: 3, MaxIterations: 10, Name: "my-proj", CheckFailures: "go test: 2 failures"}
	unlimited := Vars{Iteration: 3, Name: "my-proj"}
	tests := []struct {
		name string
		text string
		vars Vars
		want string
	}{
		{"text without placeholders is returned as is", "Do the work.\n", vars, "Do the work.\n"},
		{"the empty text stays empty", "", vars, ""},
		{"iteration and max_iterations", "Iteration {{iteration}} of {{max_iterations}}", vars, "Iteration 3 of 10"},
		{"remaining is max minus iteration", "{{remaining}} left", vars, "7 left"},
		{"name and check_failures", "[{{name}}] {{check_failures}}", vars, "[my-proj] go test: 2 failures"},
		{"a placeholder used twice is replaced twice", "{{iteration}}/{{iteration}}", vars, "3/3"},
		{"max 0 means unlimited", "{{max_iterations}} max, {{remaining}} left", unlimited, "unlimited max, unlimited left"},
		{"an empty check_failures leaves nothing", "failures: [{{check_failures}}]", unlimited, "failures: []"},
		{"an unknown placeholder is kept byte for byte", "{{foo}} and {{iteration}}", vars, "{{foo}} and 3"},
		{"a placeholder with spaces is kept byte for byte", "{{ iteration }} {{Iteration}}", vars, "{{ iteration }} {{Iteration}}"},
		{"lone and nested braces are kept", "{ {{ }} {{{iteration}}} }}", vars, "{ {{ }} {3} }}"},
		{"text around placeholders keeps CRLF, tabs and unicode", "é\t{{name}}\r\n✓", vars, "é\tmy-proj\r\n✓"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Render(tt.text, tt.vars); got != tt.want {
				t.Errorf("Render(%q) = %q, want %q", tt.text, got, tt.want)
			}
		})
	}
}

func TestRenderDoesNotExpandPlaceholdersInsideValues(t *testing.T) {
	// A check's output may contain "{{iteration}}" itself: it is a value,
	// not a template.
	v := Vars{Iteration: 1, MaxIterations: 2, CheckFailures: "want {{iteration}}, got {{name}}"}
	got := Render("{{check_failures}}", v)
	if want := "want {{iteration}}, got {{name}}"; got != want {
		t.Errorf("Render = %q, want %q", got, want)
	}
}

func TestComposePutsFailuresWhereAsked(t *testing.T) {
	const fb = "Check \"x\" failed with exit code 1.\nOutput file: /f"
	v := Vars{Iteration: 2, MaxIterations: 5, Name: "n", CheckFailures: fb}
	tests := []struct {
		name, text, action string
		count              bool
		vars               Vars
		want               string
	}{
		{"append after a final line break", "do it\n", FailAppend, false, v, "do it\n\n" + fb},
		{"append without a final line break", "do it", FailAppend, false, v, "do it\n\n" + fb},
		{"append after a blank line adds nothing", "do it\n\n", FailAppend, false, v, "do it\n\n" + fb},
		{"prepend", "do it\n", FailPrepend, false, v, fb + "\n\ndo it\n"},
		{"replace", "do it\n", FailReplace, false, v, fb},
		{"the placeholder takes them instead", "do it\n{{check_failures}}\nend", FailAppend, false, v, "do it\n" + fb + "\nend"},
		{"no failures: the prompt as rendered", "do {{name}} {{x}}", FailReplace, false, Vars{Iteration: 1, Name: "n"}, "do n {{x}}"},
		{"the iteration count comes first", "do it", FailPrepend, true, v, "Iteration 2 of 5, 3 remaining.\n\n" + fb + "\n\ndo it"},
		{"count without a limit", "do it", FailAppend, true, Vars{Iteration: 7}, "Iteration 7.\n\ndo it"},
		{"count on an empty prompt", "", FailAppend, true, Vars{Iteration: 1, MaxIterations: 1}, "Iteration 1 of 1, 0 remaining."},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Compose(tc.text, tc.vars, tc.action, tc.count); got != tc.want {
				t.Errorf("Compose = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestReadPromptRefusesTextThatIsNotUTF8AtItsFirstBadByte(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		text string
		at   int // -1: accepted
	}{
		{"do \377\376 task", 3},
		{"héllo \xc3", 7},        // a character cut at the end
		{"\xed\xa0\x80 half", 0}, // a UTF-16 surrogate
		{"fine: é, ✓, \uFFFD, 🙂", -1},
	} {
		p := filepath.Join(dir, "prompt.md")
		writeFile(t, p, []byte(tc.text), 0o644)
		text, err := Read(p)
		var bad *NotUTF8Error
		switch {
		case tc.at < 0 && (err != nil || text != tc.text):
			t.Errorf("Read(%q) = %q, %v; want the text", tc.text, text, err)
		case tc.at >= 0 && (!errors.As(err, &bad) || bad.Offset != tc.at || err.Error() != fmt.Sprintf("prompt file %s is not valid UTF-8 at byte %d", p, tc.at)):
			t.Errorf("Read(%q): %v; want not UTF-8 at byte %d", tc.text, err, tc.at)
		}
	}
}
