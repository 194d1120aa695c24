package agent

import (
	"os"
	"strings"
	"testing"
	"time"
)

func TestIdleBetweenTellsAnIdleAgentFromOneAtWork(t *testing.T) {
	t0 := time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)
	look := func(after time.Duration, pgid int, ticks int64) Foreground {
		return Foreground{At: t0.Add(after), pgid: pgid, ticks: ticks, OK: true}
	}
	for _, tc := range []struct {
		name string
		a, b Foreground
		want bool
	}{
		{"idle: one tick in a second", look(0, 10, 500), look(time.Second, 10, 501), true},
		{"idle: no tick in half a second", look(0, 10, 500), look(500*time.Millisecond, 10, 500), true},
		{"idle: one tick in a short span", look(0, 10, 500), look(IdleSpan, 10, 501), true},
		{"at work: 60 ticks in a second", look(0, 10, 500), look(time.Second, 10, 560), false},
		{"at work: 6 ticks in a second", look(0, 10, 500), look(time.Second, 10, 506), false},
		{"idle over 10 s: 30 ticks", look(0, 10, 500), look(10*time.Second, 10, 530), true},
		{"too short to tell", look(0, 10, 500), look(100*time.Millisecond, 10, 500), false},
		{"another foreground group", look(0, 10, 500), look(time.Second, 11, 500), false},
		{"no first look", Foreground{}, look(time.Second, 10, 500), false},
		{"no second look", look(0, 10, 500), Foreground{}, false},
	} {
		if got := IdleBetween(tc.a, tc.b); got != tc.want {
			t.Errorf("%s: IdleBetween = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestReadyBySignals(t *testing.T) {
	for _, tc := range []struct {
		pasteOn bool
		still   time.Duration
		idle    bool
		want    bool
	}{
		{true, ReadyStable, true, true},
		{true, ReadyStable - time.Millisecond, true, false},
		{true, time.Minute, false, false}, // still but busy: a spinner-less wait
		{false, ReadyStable, true, false},
		{false, signalsStable, true, true},
	} {
		if got := ReadyBySignals(tc.pasteOn, tc.still, tc.idle); got != tc.want {
			t.Errorf("ReadyBySignals(%v, %s, %v) = %v, want %v", tc.pasteOn, tc.still, tc.idle, got, tc.want)
		}
	}
}

// LookForeground reads this test's own terminal group from /proc, when it
// has a terminal; with none it says it cannot tell.
func TestLookForegroundReadsProc(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc")
	}
	if fg := LookForeground(-1, time.Now()); fg.OK {
		t.Errorf("a pid that cannot exist: %+v", fg)
	}
	p, _, err := readProc(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	fg := LookForeground(os.Getpid(), time.Now())
	if fg.OK != (p.tpgid > 0) || fg.OK && fg.pgid != p.tpgid {
		t.Errorf("LookForeground = %+v, want the terminal's group %d", fg, p.tpgid)
	}
}

// A box that waits for a key is told by signs every agent draws alike, at
// the bottom of its screen; a reply or a prompt's echo higher up, or an
// agent at work, is no box.
func TestWaitsForKeyReadsTheBoxAtTheBottomOfTheScreen(t *testing.T) {
	filler := strings.Repeat("● a line of the reply\n", 12)
	for _, c := range []struct {
		name, screen string
		want         bool
	}{
		{"auto mode notice", "│ We're changing auto mode │\n│ Enter to continue · Esc to cancel │\n", true},
		{"numbered choices", " Do you want to proceed?\n ❯ 1. Yes\n   2. No\n", true},
		{"press enter to confirm", "› 1. Yes, proceed (y)\n  Press enter to confirm or esc to cancel\n", true},
		{"a y/n question", "Overwrite the file? [y/N]\n", true},
		{"y/n", "Continue? [Y/n]\n", true},
		{"gemini at work", " ⠏ Thinking... (esc to cancel, 12s)\n >   Type your message\n", false},
		{"a numbered prompt's echo", "❯ 1. fix the bug\n  2. run the tests\n● Done.\n  ? for shortcuts\n", false},
		{"a box scrolled up", "Enter to continue · Esc to cancel\n" + filler, false},
		{"idle", "● Done.\n✻ Worked for 3s\n❯ \n  ? for shortcuts\n", false},
	} {
		if got := WaitsForKey(ScreenLines(c.screen, 20)); got != c.want {
			t.Errorf("%s: WaitsForKey = %v, want %v", c.name, got, c.want)
		}
	}
}
