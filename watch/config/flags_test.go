package config

import (
	"strings"
	"testing"
	"time"
)

func TestParseDurationTakesGoDurationsAndBareSeconds(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    time.Duration
		wantErr string // part of the error, "" for none
	}{
		{"seconds with a unit", "90s", 90 * time.Second, ""},
		{"minutes with a unit", "3m", 3 * time.Minute, ""},
		{"a bare integer is seconds", "5", 5 * time.Second, ""},
		{"zero disables", "0", 0, ""},
		{"zero with a unit", "0s", 0, ""},
		{"a fraction of an hour", "1.5h", 90 * time.Minute, ""},
		{"a combined duration", "1h2m3s", time.Hour + 2*time.Minute + 3*time.Second, ""},
		{"spaces around are trimmed", " 30 ", 30 * time.Second, ""},
		{"the largest bare number of seconds allowed", "4611686018", 4611686018 * time.Second, ""},
		{"a bare negative number is refused", "-1", 0, "negative"},
		{"a negative duration is refused", "-5s", 0, "negative"},
		{"a word is refused with a hint", "abc", 0, "use 90s, 3m or a number of seconds"},
		{"the empty string is refused", "", 0, "invalid duration"},
		{"a bare fraction without unit is refused", "1.5", 0, "invalid duration"},
		{"an unknown unit is refused", "3 days", 0, "invalid duration"},
		{"too many seconds are refused", "4611686019", 0, "too long"},
		{"a number past int64 is refused", "99999999999999999999", 0, "invalid duration"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseDuration(tt.in)
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("ParseDuration(%q) error %v, want %v", tt.in, err, tt.want)
			case tt.wantErr != "" && err == nil:
				t.Errorf("ParseDuration(%q) = %v, want an error with %q", tt.in, got, tt.wantErr)
			case tt.wantErr != "" && !strings.Contains(err.Error(), tt.wantErr):
				t.Errorf("ParseDuration(%q) error %q, want it to contain %q", tt.in, err, tt.wantErr)
			case tt.wantErr == "" && got != tt.want:
				t.Errorf("ParseDuration(%q) = %v, want %v", tt.in, got, tt.want)
			}
		})
	}
}

func TestDurationFlagSetsOnlyValidValues(t *testing.T) {
	d := 7 * time.Second
	f := Duration{&d}
	if err := f.Set("2m"); err != nil || d != 2*time.Minute || f.String() != "120s" {
		t.Errorf("Set(2m): err %v, value %v, String %q", err, d, f.String())
	}
	if err := f.Set("-1"); err == nil || d != 2*time.Minute {
		t.Errorf("Set(-1): err %v, value %v; want an error and the value unchanged", err, d)
	}
	if got := (Duration{}).String(); got != "" {
		t.Errorf("zero Duration String = %q, want empty", got)
	}
}
