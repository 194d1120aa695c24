package agent

import (
	"reflect"
	"testing"
	"time"
)

func TestScreenLinesKeepsOnlyRealContent(t *testing.T) {
	tests := []struct {
		name    string
		capture string
		n       int
		want    []string
	}{
		{"trailing blank rows of the screen are ignored", "$ make\nok\n\n\n\n", 10, []string{"$ make", "ok"}},
		{"trailing spaces and tabs are ignored", "$ make   \nok\t \n", 10, []string{"$ make", "ok"}},
		{"blank lines between content are dropped", "one\n\n   \n\ttwo\n", 10, []string{"one", "\ttwo"}},
		{"only the last n lines are taken", "1\n2\n3\n4\n5\n", 2, []string{"4", "5"}},
		{"n larger than the screen takes everything", "1\n2\n", 50, []string{"1", "2"}},
		{"n of 0 takes everything", "1\n2\n3\n", 0, []string{"1", "2", "3"}},
		{"colours are removed", "\x1b[32m✓\x1b[0m tests pass  \n", 5, []string{"✓ tests pass"}},
		{"CR LF captures read like LF ones", "a\r\nb\r\n", 5, []string{"a", "b"}},
		{"an empty screen has no lines", "\n\n   \n", 5, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ScreenLines(tt.capture, tt.n); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ScreenLines(%q, %d) = %q, want %q", tt.capture, tt.n, got, tt.want)
			}
		})
	}
}

func TestScreenHashComparesWhatMatters(t *testing.T) {
	tests := []struct {
		name     string
		a, b     string
		n        int
		wantSame bool
	}{
		{"same content with different trailing whitespace hashes equal",
			"working...\n> \n", "working...   \n>\n\n\n\n", 5, true},
		{"a change in a line above the last n does not change the hash",
			"elapsed 10s\nline 1\nline 2\n", "elapsed 11s\nline 1\nline 2\n", 2, true},
		{"a change within the last n changes the hash",
			"line 1\nline 2\nelapsed 10s\n", "line 1\nline 2\nelapsed 11s\n", 2, false},
		{"colours do not change the hash",
			"\x1b[1;31merror\x1b[0m: build failed\n", "\x1b[33merror\x1b[m: build failed\n", 5, true},
		{"blank lines inserted between lines do not change the hash",
			"a\nb\n", "a\n\n\nb\n", 5, true},
		{"a change in indentation changes the hash",
			"a\n  b\n", "a\n    b\n", 5, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			same := ScreenHash(tt.a, tt.n) == ScreenHash(tt.b, tt.n)
			if same != tt.wantSame {
				t.Errorf("ScreenHash(%q) == ScreenHash(%q) is %v, want %v", tt.a, tt.b, same, tt.wantSame)
			}
		})
	}
}

func TestDetectorTellsHowLongTheScreenStayedTheSame(t *testing.T) {
	base := time.Date(2024, 3, 5, 14, 0, 0, 0, time.UTC)
	idle := ScreenHash("waiting for input\n> ", 10)
	busy := ScreenHash("thinking...\n", 10)
	type step struct {
		reset bool // call Reset before this observation
		hash  [16]byte
		at    time.Duration // since base
		want  time.Duration
	}
	tests := []struct {
		name  string
		steps []step
	}{
		{"the first observation returns 0", []step{
			{hash: idle, at: 0, want: 0},
		}},
		{"an unchanged hash returns the time since it was first seen", []step{
			{hash: idle, at: 0, want: 0},
			{hash: idle, at: 5 * time.Second, want: 5 * time.Second},
			{hash: idle, at: 90 * time.Second, want: 90 * time.Second},
		}},
		{"a first observation later than base still returns 0", []step{
			{hash: idle, at: time.Hour, want: 0},
			{hash: idle, at: time.Hour + time.Minute, want: time.Minute},
		}},
		{"a change resets the clock", []step{
			{hash: idle, at: 0, want: 0},
			{hash: idle, at: 30 * time.Second, want: 30 * time.Second},
			{hash: busy, at: 40 * time.Second, want: 0},
			{hash: busy, at: 45 * time.Second, want: 5 * time.Second},
			{hash: idle, at: 50 * time.Second, want: 0},
			{hash: idle, at: 70 * time.Second, want: 20 * time.Second},
		}},
		{"after Reset the same screen counts as a change", []step{
			{hash: idle, at: 0, want: 0},
			{hash: idle, at: 60 * time.Second, want: 60 * time.Second},
			{reset: true, hash: idle, at: 61 * time.Second, want: 0},
			{hash: idle, at: 65 * time.Second, want: 4 * time.Second},
		}},
		{"Reset before anything was seen is harmless", []step{
			{reset: true, hash: busy, at: 0, want: 0},
			{hash: busy, at: time.Second, want: time.Second},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var d Detector
			for i, s := range tt.steps {
				if s.reset {
					d.Reset()
				}
				if got := d.Observe(s.hash, base.Add(s.at)); got != s.want {
					t.Errorf("step %d: Observe at base+%v = %v, want %v", i, s.at, got, s.want)
				}
			}
		})
	}
}
