package cast

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/clock"
)

// stampedWriter notes the clock's reading at each write.
type stampedWriter struct {
	c     clock.Clock
	start time.Time
	out   bytes.Buffer
	at    []time.Duration
}

func (w *stampedWriter) Write(p []byte) (int, error) {
	w.at = append(w.at, w.c.Now().Sub(w.start))
	return w.out.Write(p)
}

var playEvents = []Event{
	{1 * time.Second, Output, "a"},
	{2 * time.Second, Marker, MarkPromptDelivered},
	{3 * time.Second, Output, "b"},
	{63 * time.Second, Output, "c"}, // a minute idle
	{63 * time.Second, Resize, "90x30"},
	{64 * time.Second, Output, "d"},
}

func TestPlayKeepsThePaceTimesTheSpeed(t *testing.T) {
	for _, tc := range []struct {
		name      string
		speed     float64
		idleLimit time.Duration
		want      []time.Duration
	}{
		{"recorded pace", 1, 0, []time.Duration{1e9, 3e9, 63e9, 64e9}},
		{"twice as fast", 2, 0, []time.Duration{5e8, 15e8, 315e8, 32e9}},
		{"idle capped at 2s", 1, 2 * time.Second, []time.Duration{1e9, 3e9, 5e9, 6e9}},
		{"capped and four times as fast", 4, 2 * time.Second, []time.Duration{25e7, 75e7, 125e7, 150e7}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := clock.NewAuto(start)
			w := &stampedWriter{c: c, start: start}
			if err := Play(context.Background(), w, playEvents, tc.speed, tc.idleLimit, c); err != nil {
				t.Fatal(err)
			}
			if w.out.String() != "abcd" {
				t.Errorf("played %q, want only the output, abcd", w.out.String())
			}
			if len(w.at) != len(tc.want) {
				t.Fatalf("writes at %v, want %v", w.at, tc.want)
			}
			for i := range tc.want {
				if w.at[i] != tc.want[i] {
					t.Errorf("writes at %v, want %v", w.at, tc.want)
					break
				}
			}
		})
	}
}

func TestPlayStopsWhenCancelled(t *testing.T) {
	c := clock.NewFake(start)
	ctx, cancel := context.WithCancel(context.Background())
	var out bytes.Buffer
	done := make(chan error, 1)
	go func() { done <- Play(ctx, &out, playEvents, 1, 0, c) }()
	wait, stop := context.WithTimeout(context.Background(), 10*time.Second)
	defer stop()
	if !c.WaitFor(wait, 1) {
		t.Fatal("Play never waited for the first event")
	}
	cancel()
	select {
	case err := <-done:
		if err != context.Canceled || out.Len() != 0 {
			t.Errorf("Play = %v after writing %q, want canceled before any output", err, out.String())
		}
	case <-wait.Done():
		t.Fatal("Play went on after its context was cancelled")
	}
}

func TestPlayRefusesAStoppedSpeed(t *testing.T) {
	if err := Play(context.Background(), &bytes.Buffer{}, playEvents, 0, 0, clock.NewAuto(start)); err == nil {
		t.Error("Play accepted speed 0")
	}
}
