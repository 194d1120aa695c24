package iteration

import (
	"regexp"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/agent"
)

// ReadyBy says how an agent was seen to be ready for input.
type ReadyBy int

// The ways a look finds the agent ready.
const (
	NotReady  ReadyBy = iota
	ByPattern         // the ready pattern matched
	ByStable          // the screen held still
	ByPaste           // bracketed paste on, then a shorter still screen
	ByIdle            // no pattern matched, but paste, still screen and idle processes say so
)

// Readiness judges, look by look, whether an agent takes input yet: its
// visible screen matches the ready pattern, or has been still a moment (a
// shorter one once it turned on bracketed paste); where a pattern does not
// match, the agent-agnostic signals (paste on, screen and cursor still, its
// processes idle) stand in for it.
type Readiness struct {
	Pattern *regexp.Regexp // the ready pattern; nil: a still screen is ready
	PID     int            // the agent's process, whose terminal's foreground is read
	// AwaitPaste: the agent turned on bracketed paste in an earlier
	// iteration, so its input box is not ready before it does (Gemini CLI on
	// a busy machine drew it first and dropped the Enter): the pattern
	// waits for paste on, PatternWithoutPaste at most.
	AwaitPaste bool
	matchedAt  time.Time // when the pattern first matched without paste on
	det        agent.Detector
	fg         agent.Foreground
	stable     time.Duration // how long the screen has held still, at the last look
	now        time.Time     // when the last look was
}

// PatternWithoutPaste bounds the wait for bracketed paste once the ready
// pattern matches, for an agent that turned it on before.
const PatternWithoutPaste = 3 * time.Second

// Observe notes a look at the visible screen with its cursor at now.
func (r *Readiness) Observe(screenAndCursor string, now time.Time) {
	r.stable, r.now = r.det.Observe(agent.ScreenHash(screenAndCursor, 0), now), now
}

// Judge says whether the last look shows the agent ready: its screen's
// lines, and whether it turned on bracketed paste.
func (r *Readiness) Judge(lines []string, pasteOn bool) ReadyBy {
	stable, now := r.stable, r.now
	switch {
	case r.Pattern != nil && agent.ReadyMatch(r.Pattern, lines):
		if pasteOn || !r.AwaitPaste {
			return ByPattern
		}
		if r.matchedAt.IsZero() {
			r.matchedAt = now
		}
		if now.Sub(r.matchedAt) >= PatternWithoutPaste {
			return ByPattern // a release that no longer turns it on
		}
		return NotReady
	case r.Pattern == nil && len(lines) > 0 && (stable >= agent.ReadyStable || pasteOn && stable >= agent.PasteOnStable):
		if pasteOn && stable < agent.ReadyStable {
			return ByPaste
		}
		return ByStable
	case r.Pattern != nil && len(lines) > 0 && stable >= agent.ReadyStable && (!r.fg.OK || now.Sub(r.fg.At) >= agent.IdleSpan):
		// No pattern matched: is the agent idle on its terminal all the same?
		next := agent.LookForeground(r.PID, now)
		if agent.ReadyBySignals(pasteOn, stable, agent.IdleBetween(r.fg, next)) {
			return ByIdle
		}
		r.fg = next
	}
	return NotReady
}
