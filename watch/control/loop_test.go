package control

import (
	"strings"
	"testing"
)

func TestValidNameAcceptsSafeFolderNamesOnly(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want bool
	}{
		{"a plain word", "proj", true},
		{"dashes, dots, underscores and digits", "my-proj_2.v3", true},
		{"a dot inside", "a.b", true},
		{"three dots is a real name", "...", true},
		{"a leading dot", ".hidden", true},
		{"64 characters", strings.Repeat("a", 64), true},
		{"empty", "", false},
		{"the current folder", ".", false},
		{"the parent folder", "..", false},
		{"a slash", "a/b", false},
		{"a space", "a b", false},
		{"a quote", "a'b", false},
		{"a command substitution", "$(x)", false},
		{"a newline", "a\nb", false},
		{"a trailing newline", "ab\n", false},
		{"65 characters", strings.Repeat("a", 65), false},
		{"a non-ASCII letter", "café", false},
		{"a backslash", `a\b`, false},
		{"a NUL byte", "a\x00b", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ValidName(tt.in); got != tt.want {
				t.Errorf("ValidName(%q) = %v, want %v", tt.in, got, tt.want)
			}
		})
	}
}
