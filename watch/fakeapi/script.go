package fakeapi

// The reply script: what the fake model does for one request.

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// JudgeMarker is how a judge's request is told (goal mode's judge,
// watch/judge): its input begins with this sentence.
const JudgeMarker = "You judge whether a coding loop has met the person's goal."

// forJudge resolves a script whose first line is "!judge VERDICT": a
// request whose last user message holds a judge's input (JudgeMarker) is
// answered with VERDICT, any other with the rest of the script.
func forJudge(script string, texts []string) string {
	first, rest, _ := strings.Cut(script, "\n")
	name, verdict, _ := strings.Cut(first, " ")
	if name != "!judge" {
		return script
	}
	for _, text := range texts {
		if strings.Contains(text, JudgeMarker) {
			return strings.TrimSpace(verdict)
		}
	}
	return rest
}

// turn is what the fake model does for one request.
type turn struct {
	text    string // reply text, streamed one line per delta
	command string // when set, ask to run this shell command instead
	limit   bool   // refuse with a usage-limit error
	denied  int    // refuse with this HTTP status (401, 403): the key is not accepted
	reset   time.Time
	kind    string        // which limit: five_hour, seven_day…
	delay   time.Duration // before the first delta
	chunk   time.Duration // between deltas
}

// planTurn reads the script for a request; toolResult says the request
// carries the result of a tool the previous turn asked for.
func planTurn(script string, toolResult bool, delay, chunk time.Duration) turn {
	t := turn{delay: delay, chunk: chunk}
	for {
		first, rest, _ := strings.Cut(script, "\n")
		name, arg, _ := strings.Cut(first, " ")
		var d *time.Duration
		switch name {
		case "!delay":
			d = &t.delay
		case "!chunk-delay":
			d = &t.chunk
		case "!bash":
			if toolResult {
				t.text = rest
			} else {
				t.command = strings.TrimSpace(arg)
			}
			return t
		case "!unauthorized":
			t.denied = http.StatusUnauthorized
			if strings.TrimSpace(arg) == "403" {
				t.denied = http.StatusForbidden
			}
			return t
		case "!limit":
			f := strings.Fields(arg)
			secs := 3600
			if len(f) > 0 {
				if n, err := strconv.Atoi(f[0]); err == nil && n > 0 {
					secs = n
				}
			}
			t.kind = "five_hour"
			if len(f) > 1 {
				t.kind = f[1]
			}
			t.limit, t.reset = true, time.Now().Add(time.Duration(secs)*time.Second).Truncate(time.Second)
			return t
		default:
			t.text = script
			return t
		}
		if v, err := time.ParseDuration(strings.TrimSpace(arg)); err == nil {
			*d = v
		}
		script = rest
	}
}

// summary is how a turn is logged.
func (t turn) summary() string {
	switch {
	case t.denied != 0:
		return fmt.Sprintf("!unauthorized %d", t.denied)
	case t.limit:
		return fmt.Sprintf("!limit %d %s", t.reset.Unix(), t.kind)
	case t.command != "":
		return "!bash " + t.command
	}
	return t.text
}

// lines splits reply text into the deltas it is streamed as.
func (t turn) lines() []string {
	var out []string
	for _, part := range strings.SplitAfter(t.text, "\n") {
		if part != "" {
			out = append(out, part)
		}
	}
	return out
}
