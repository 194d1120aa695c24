package tmux

import "testing"

func TestEscapeProtectsATrailingSemicolonFromTmux(t *testing.T) {
	// tmux takes an argument ending in ";" as a command separator and turns
	// a trailing `\;` back into ";" (cmd_parse_from_arguments).
	tests := []struct {
		name, arg, want string
	}{
		{"a trailing semicolon is escaped", "a;", `a\;`},
		{"an argument without one is unchanged", "a", "a"},
		{"the empty argument is unchanged", "", ""},
		{"a lone semicolon is escaped", ";", `\;`},
		{"a semicolon inside is left alone", "a;b", "a;b"},
		{"only the last of two semicolons needs escaping", "a;;", `a;\;`},
		{"a shell command ending in ; is escaped", "make test;", `make test\;`},
		{"an argument already ending in \\; gets one more backslash", `a\;`, `a\\;`},
		{"a trailing backslash alone is unchanged", `a\`, `a\`},
		{"unicode before the semicolon is kept", "✓;", `✓\;`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Escape(tt.arg); got != tt.want {
				t.Errorf("Escape(%q) = %q, want %q", tt.arg, got, tt.want)
			}
		})
	}
}

func TestAtLeastComparesTmuxVersions(t *testing.T) {
	tests := []struct {
		name         string
		version      string
		major, minor int
		want         bool
	}{
		{"a newer minor with a letter passes", "3.3a", 3, 2, true},
		{"an older minor with a letter fails", "3.1c", 3, 2, false},
		{"the same version passes", "3.2", 3, 2, true},
		{"the same version with a letter passes", "3.2a", 3, 2, true},
		{"a next- build passes", "next-3.4", 3, 2, true},
		{"master passes (unparsable)", "master", 3, 2, true},
		{"an empty version passes (unparsable)", "", 3, 2, true},
		{"an older major fails", "2.9", 3, 2, false},
		{"an older major with a higher minor fails", "2.9a", 3, 2, false},
		{"a newer major with a lower minor passes", "4.0", 3, 2, true},
		{"a two-digit minor compares as a number", "3.10", 3, 2, true},
		{"a release candidate of the same version passes", "3.2-rc", 3, 2, true},
		{"a leading 'tmux ' is tolerated", "tmux 3.4", 3, 2, true},
		{"an old one with 'tmux ' fails", "tmux 1.8", 3, 2, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := AtLeast(tt.version, tt.major, tt.minor); got != tt.want {
				t.Errorf("AtLeast(%q, %d, %d) = %v, want %v", tt.version, tt.major, tt.minor, got, tt.want)
			}
		})
	}
}
