package contract

import "time"

// Event is one thing the loop learned about the agent in an iteration, for a
// listener such as `ralph-watch doctor`: what happened, how it was known, and
// how long after the agent was started.
type Event struct {
	Iteration int
	Kind      EventKind
	Via       string        // how it was known: ViaHook, ViaScreen, ViaPattern, ViaExit, …
	After     time.Duration // since the agent was started (respawned)
	Detail    string        // e.g. the limit line, the done match
}

// EventKind names what happened.
type EventKind string

// The events of one iteration, in the order they usually come.
const (
	EventStarted    EventKind = "started"     // the pane was respawned with the agent
	EventOutput     EventKind = "output"      // the agent's first output
	EventPasteOn    EventKind = "paste-on"    // the agent turned on bracketed paste
	EventReady      EventKind = "ready"       // it takes input: the prompt is typed now
	EventPasted     EventKind = "pasted"      // the paste showed in the pane
	EventSubmitted  EventKind = "submitted"   // the Enter took: the prompt went in
	EventBusy       EventKind = "busy"        // a turn is running
	EventTurnEnd    EventKind = "turn-end"    // the agent finished its turn
	EventDone       EventKind = "done"        // the done pattern matched after the prompt
	EventLimit      EventKind = "limit"       // a usage limit
	EventDialog     EventKind = "dialog"      // a question waits for the person
	EventStartup    EventKind = "startup"     // a start-up dialog
	EventExit       EventKind = "exit"        // the agent exited
	EventFallback   EventKind = "fallback"    // a signal is missing; the loop falls back (Detail says which)
	EventTurnFailed EventKind = "turn-failed" // the agent's turn failed: an API error (Detail)
)

// How an event was known.
const (
	ViaHook    = "hook"    // the agent reported it itself
	ViaScreen  = "screen"  // the profile's view of the screen
	ViaPattern = "pattern" // a pattern the person gave
	ViaStable  = "stable"  // the screen held still
	ViaPaste   = "paste"   // bracketed paste turned on, then a still screen
	ViaTimeout = "timeout" // nothing said so; a timer ran out
	ViaStream  = "stream"  // the pane's output stream
	ViaExit    = "exit"    // the exit marker
	ViaIdle    = "idle"    // agent-agnostic signs: paste on, screen and cursor still, its processes idle
	ViaProbe   = "probe"   // an Enter pressed to see whether the agent had the text
)

// EventPasteCheck tells what the typist made of a paste that did not show
// (Detail: wait, probe, again, landed, submitted).
const EventPasteCheck EventKind = "paste-check"
