package agent

import (
	"regexp"
	"strings"
	"time"
)

// Signs that an agent is ready or idle which no release's strings can
// change: it turned on bracketed paste, its screen and cursor hold still,
// and the processes in the foreground of its terminal use next to no CPU.
// They stand in when a profile's patterns do not match (a new release
// redrew its footer), so that a supported agent is never waited for until a
// timeout when it is in fact ready or done.

// Foreground is a look at the foreground of a pane's terminal in /proc:
// its process group and the CPU time that group has used.
type Foreground struct {
	At    time.Time
	pgid  int
	ticks int64 // user and system clock ticks of the group's processes
	OK    bool
}

// Measured on Claude Code, Codex and Gemini CLI (node programs waiting in
// epoll, not read): idle at its prompt an agent uses about one tick a
// second (1% of a core); at work it renders, parses and streams at 50-100%.
const (
	IdleSpan           = 400 * time.Millisecond // the shortest span that tells idle from at work
	idleTicksPerSecond = 5                      // at most 5% of a core (100 ticks a second) is idle
	signalsStable      = 2 * time.Second        // still this long without bracketed paste
	// ReadyStable: a screen this still is ready.
	ReadyStable = 700 * time.Millisecond
	// PasteOnStable: as still, once the agent turned on bracketed paste.
	PasteOnStable = 200 * time.Millisecond
)

// LookForeground reads the foreground of the terminal of pid (a pane's
// process) at now; ok is false when /proc cannot tell.
func LookForeground(pid int, now time.Time) Foreground {
	if pid <= 0 {
		return Foreground{}
	}
	p, live, err := readProc(pid)
	if err != nil || !live || p.tpgid <= 0 {
		return Foreground{}
	}
	fg := Foreground{At: now, pgid: p.tpgid, OK: true}
	for _, q := range listProcs() {
		if q.pgrp == p.tpgid {
			fg.ticks += q.ticks
		}
	}
	return fg
}

// IdleBetween reports whether the same foreground group used next to no
// CPU between two looks far enough apart to tell.
func IdleBetween(a, b Foreground) bool {
	span := b.At.Sub(a.At)
	if !a.OK || !b.OK || a.pgid != b.pgid || span < IdleSpan {
		return false
	}
	allowed := max(int64(span.Seconds()*idleTicksPerSecond), 1)
	return b.ticks-a.ticks <= allowed
}

// ReadyBySignals judges readiness with no pattern to go by: the agent's
// processes idle, and its screen and cursor still long enough, shorter once
// it turned on bracketed paste (it reads its terminal raw by then).
func ReadyBySignals(pasteOn bool, still time.Duration, idle bool) bool {
	return idle && (pasteOn && still >= ReadyStable || still >= signalsStable)
}

// A box that waits for a key looks alike in every agent and release: a
// key hint ("Enter to continue · Esc to cancel", "Press enter to confirm"),
// or a question with numbered choices under a cursor ("Do you want to
// proceed?" then "❯ 1. Yes"). It is drawn where the agent takes input, at
// the bottom of its screen; text higher up (a prompt's echo, a reply) is
// not a box.
var (
	keyHint = regexp.MustCompile(`(?im)\b(press )?enter to (continue|confirm|select|proceed|accept)\b|` +
		`\besc to cancel\s*(·.*)?$|\bpress any key\b|\(y/n\)|\[y/n\]`)
	choices = regexp.MustCompile(`(?m)\?\s*\n\W*[❯›▸]\s*1\.\s+\S`) // a question, and its first choice under the cursor
)

// boxLines is how many of the last lines a waiting box is looked for in.
const boxLines = 10

// WaitsForKey reports whether the bottom of a screen shows a box that
// waits for a key: a question for the person, whatever the agent's
// profile knows of its strings or its hooks said.
func WaitsForKey(lines []string) bool {
	if len(lines) > boxLines {
		lines = lines[len(lines)-boxLines:]
	}
	text := strings.Join(lines, "\n")
	return keyHint.MatchString(text) || choices.MatchString(text)
}
