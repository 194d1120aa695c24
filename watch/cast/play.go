package cast

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/clock"
)

// Play writes the output events to w at their recorded pace divided by
// speed (2 plays twice as fast), each gap between events capped at
// idleLimit (0: no cap). Markers, input and resizes are not written.
func Play(ctx context.Context, w io.Writer, events []Event, speed float64, idleLimit time.Duration, c clock.Clock) error {
	if speed <= 0 {
		return fmt.Errorf("play cast: speed %v is not above 0", speed)
	}
	start := c.Now()
	var due, prev time.Duration // due: when the next event is written, from start
	for _, e := range events {
		gap := e.Time - prev
		prev = e.Time
		if idleLimit > 0 && gap > idleLimit {
			gap = idleLimit
		}
		due += time.Duration(float64(gap) / speed)
		// Sleeping to a fixed schedule, not gap by gap, keeps writes from drifting.
		if !clock.Sleep(ctx, c, due-clock.Since(c, start)) {
			return ctx.Err()
		}
		if e.Code != Output {
			continue
		}
		if _, err := io.WriteString(w, e.Data); err != nil {
			return fmt.Errorf("play cast: %v", err)
		}
	}
	return nil
}
