package watch_test

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/tmux/tmuxfake"
)

// The simulated agent: each start of it drawn from the seed (see simulate),
// run as a program in a fake pane.

// simAgent is one start of the simulated agent, drawn from the seed.
type simAgent struct {
	readyAt  int  // ticks (the loop's looks at the pane) before it draws its prompt; -1 never
	pasteOn  bool // it turns on bracketed paste
	echo     bool // it shows what is pasted
	dieAt    int  // the tick at which it dies, whatever it is doing; -1 never
	dieCode  int
	killed   bool          // it dies by SIGKILL
	reply    string        // token, plain, flood
	delay    time.Duration // the reply comes this long after the Enter (0: at once)
	exitCode int           // after its reply; -1: it stays at its prompt
}

// simProgram is the agent a: a REPL that draws its prompt at its readyAt-th
// tick, answers the submitted prompt, and dies at its dieAt-th tick.
func simProgram(a simAgent, n int, personTypes func() bool, later func(time.Duration, func(*tmuxfake.Term)), gotPaste func(iteration int, text string),
	submitted func(iteration int, text string), printedToken func(iteration int)) *tmuxfake.Program {
	mine, ready := 0, false
	iteration := 0
	draw := func(t *tmuxfake.Term) {
		ready = true
		if a.pasteOn {
			t.Raw("\033[?2004h")
		}
		t.Write("> ")
	}
	asked := false
	answer := func(t *tmuxfake.Term) {
		reply := a.reply
		if reply == "question" && asked {
			reply = "plain" // answered: it goes on
		}
		switch reply {
		case "token":
			t.Write("all tasks complete\nRALPH_DONE\n")
			printedToken(iteration)
		case "question": // waits for the person's answer (the "type" action), as a permission dialog does
			asked = true
			t.Write("Do you want to proceed? (y/n)\n")
			return
		case "limit":
			t.Write("You've hit your limit · try again in 2 minutes\n")
		case "flood":
			for i := 0; i < 200; i++ {
				t.Write(fmt.Sprintf("line %d of a long build log ..............................\n", i))
			}
		default:
			t.Write("fixed one bug\n")
		}
		if a.exitCode >= 0 {
			t.Exit(a.exitCode)
		} else {
			t.Write("> ")
		}
	}
	input := ""
	p := &tmuxfake.Program{
		Start: func(t *tmuxfake.Term) {
			for _, e := range t.Env {
				if v, ok := strings.CutPrefix(e, "RALPH_ITERATION="); ok {
					iteration, _ = strconv.Atoi(v)
				}
			}
			t.Write("agent starting\n")
			if a.readyAt == 0 {
				draw(t)
			}
		},
		Paste: func(t *tmuxfake.Term, text string) {
			if !ready {
				return // not reading yet: the text is lost
			}
			gotPaste(iteration, text)
			input += text
			if a.echo {
				t.Write(text)
			}
		},
		Key: func(t *tmuxfake.Term, key string) {
			if !ready || key != "Enter" {
				return
			}
			t.Write("\n")
			if input == "" {
				t.Write("> ")
				return
			}
			submitted(iteration, input)
			input = ""
			t.Write("working on it\n") // every agent shows its turn began
			if a.delay == 0 {
				answer(t)
			} else {
				later(a.delay, answer)
			}
		},
	}
	p.Tick = func(t *tmuxfake.Term) {
		mine++
		if personTypes() { // the person answers the agent, or types ahead
			for _, k := range []string{"y", "e", "s", "Enter"} {
				p.Key(t, k)
			}
		}
		if !ready && a.readyAt > 0 && mine >= a.readyAt {
			draw(t)
		}

		if a.dieAt >= 0 && mine >= a.dieAt {
			if a.killed {
				t.Kill(9)
			} else {
				t.Exit(a.dieCode)
			}
		}
	}
	return p
}

// withSecret notes in keyless each start of p that the secret (if any)
// did not reach through its environment.
func withSecret(secret *string, keyless *[]int, n int, p *tmuxfake.Program) *tmuxfake.Program {
	start := p.Start
	p.Start = func(t *tmuxfake.Term) {
		if *secret != "" && !slices.Contains(t.Env, "SIM_API_KEY="+*secret) {
			*keyless = append(*keyless, n)
		}
		start(t)
	}
	return p
}
