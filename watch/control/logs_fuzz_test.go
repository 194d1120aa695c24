package control

import (
	"strings"
	"testing"
)

// FuzzLastLines: logs --lines N prints the end of the log, whole lines, at
// most N of them, whatever the log holds (a torn last line, NUL bytes, CRs).
func FuzzLastLines(f *testing.F) {
	f.Add("2024-01-15T10:30:00 [START] iteration 1/100\n2024-01-15T10:31:00 [END] iteration 1 exit=0 duration=1m 0s\n", 1)
	f.Add("torn line without newline", 3)
	f.Add("\n\n\r\n\x00\n", 2)
	f.Add("", 0)
	f.Fuzz(func(t *testing.T, text string, n int) {
		got := LastLines(text, n)
		if !strings.HasSuffix(text, got) {
			t.Fatalf("LastLines(%q, %d) = %q, not the log's end", text, n, got)
		}
		if n <= 0 {
			if got != text {
				t.Fatalf("LastLines(%q, %d) = %q, want all", text, n, got)
			}
			return
		}
		if lines := strings.Count(strings.TrimSuffix(got, "\n"), "\n") + 1; got != "" && lines > n {
			t.Fatalf("LastLines(%q, %d) has %d lines", text, n, lines)
		}
		if start := len(text) - len(got); start > 0 && text[start-1] != '\n' {
			t.Fatalf("LastLines(%q, %d) = %q starts mid-line", text, n, got)
		}
	})
}
