package watch

import (
	"os"
	"testing"
	"time"
)

func TestIdleBetweenTellsAnIdleAgentFromOneAtWork(t *testing.T) {
	t0 := time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)
	look := func(after time.Duration, pgid int, ticks int64) foreground {
		return foreground{at: t0.Add(after), pgid: pgid, ticks: ticks, ok: true}
	}
	for _, tc := range []struct {
		name string
		a, b foreground
		want bool
	}{
		{"idle: one tick in a second", look(0, 10, 500), look(time.Second, 10, 501), true},
		{"idle: no tick in half a second", look(0, 10, 500), look(500*time.Millisecond, 10, 500), true},
		{"idle: one tick in a short span", look(0, 10, 500), look(idleSpan, 10, 501), true},
		{"at work: 60 ticks in a second", look(0, 10, 500), look(time.Second, 10, 560), false},
		{"at work: 6 ticks in a second", look(0, 10, 500), look(time.Second, 10, 506), false},
		{"idle over 10 s: 30 ticks", look(0, 10, 500), look(10*time.Second, 10, 530), true},
		{"too short to tell", look(0, 10, 500), look(100*time.Millisecond, 10, 500), false},
		{"another foreground group", look(0, 10, 500), look(time.Second, 11, 500), false},
		{"no first look", foreground{}, look(time.Second, 10, 500), false},
		{"no second look", look(0, 10, 500), foreground{}, false},
	} {
		if got := idleBetween(tc.a, tc.b); got != tc.want {
			t.Errorf("%s: idleBetween = %v, want %v", tc.name, got, tc.want)
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
		{true, readyStable, true, true},
		{true, readyStable - time.Millisecond, true, false},
		{true, time.Minute, false, false}, // still but busy: a spinner-less wait
		{false, readyStable, true, false},
		{false, signalsStable, true, true},
	} {
		if got := readyBySignals(tc.pasteOn, tc.still, tc.idle); got != tc.want {
			t.Errorf("readyBySignals(%v, %s, %v) = %v, want %v", tc.pasteOn, tc.still, tc.idle, got, tc.want)
		}
	}
}

// lookForeground reads this test's own terminal group from /proc, when it
// has a terminal; with none it says it cannot tell.
func TestLookForegroundReadsProc(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc")
	}
	if fg := lookForeground(-1, time.Now()); fg.ok {
		t.Errorf("a pid that cannot exist: %+v", fg)
	}
	p, _, err := readProc(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	fg := lookForeground(os.Getpid(), time.Now())
	if fg.ok != (p.tpgid > 0) || fg.ok && fg.pgid != p.tpgid {
		t.Errorf("lookForeground = %+v, want the terminal's group %d", fg, p.tpgid)
	}
}
