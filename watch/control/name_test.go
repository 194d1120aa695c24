package control

import (
	"strings"
	"testing"
)

func TestNameFromMakesAValidLoopName(t *testing.T) {
	tests := []struct {
		name       string
		base, pane string
		want       string
	}{
		{"spaces become dashes and the pane number is added", "my proj", "3", "my-proj-3"},
		{"an empty folder name gives ralph", "", "", "ralph"},
		{"an empty folder name keeps the pane number", "", "12", "ralph-12"},
		{"the root folder gives ralph", "/", "", "ralph"},
		{"dots alone give ralph", "..", "", "ralph"},
		{"unsafe characters become one dash", "a & b (copy)", "", "a-b-copy"},
		{"non-ASCII letters become dashes", "café crème", "1", "caf-cr-me-1"},
		{"leading dots and dashes are trimmed", ".config", "", "config"},
		{"a long folder name is cut to 48 characters", strings.Repeat("x", 60), "7", strings.Repeat("x", 48) + "-7"},
		{"a safe name is kept", "api.v2_beta", "", "api.v2_beta"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := NameFrom(tt.base, tt.pane)
			if got != tt.want {
				t.Errorf("NameFrom(%q, %q) = %q, want %q", tt.base, tt.pane, got, tt.want)
			}
			if !ValidName(got) {
				t.Errorf("NameFrom(%q, %q) = %q is not a valid name", tt.base, tt.pane, got)
			}
		})
	}
}
