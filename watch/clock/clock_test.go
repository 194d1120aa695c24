package clock

import (
	"context"
	"testing"
	"time"
)

var epoch = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func TestFakeFiresTimersInOrderWhenAdvancedPastThem(t *testing.T) {
	f := NewFake(epoch)
	late, early := f.After(2*time.Second), f.After(time.Second)
	f.Advance(500 * time.Millisecond)
	select {
	case <-early:
		t.Fatal("a timer fired before its deadline")
	default:
	}
	f.Advance(time.Second)
	if got := <-early; !got.Equal(epoch.Add(1500 * time.Millisecond)) {
		t.Errorf("early fired at %v", got)
	}
	if f.Waiting() != 1 {
		t.Errorf("waiting = %d, want 1", f.Waiting())
	}
	f.Advance(time.Second)
	<-late
	if f.Waiting() != 0 {
		t.Errorf("waiting = %d after all fired", f.Waiting())
	}
}

func TestAutoJumpsToEachDeadline(t *testing.T) {
	f := NewAuto(epoch)
	if !Sleep(context.Background(), f, time.Hour) {
		t.Fatal("sleep reported a cancelled context")
	}
	if got := Since(f, epoch); got != time.Hour {
		t.Errorf("an hour's sleep moved the clock %v", got)
	}
}

func TestWaitForSeesATimerAddedLater(t *testing.T) {
	f := NewFake(epoch)
	go func() { time.Sleep(10 * time.Millisecond); f.After(time.Minute) }()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if !f.WaitFor(ctx, 1) {
		t.Fatal("WaitFor never saw the timer")
	}
}

func TestSleepEndsWithTheContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if Sleep(ctx, NewFake(epoch), time.Second) {
		t.Error("sleep on a cancelled context reported it slept")
	}
}
