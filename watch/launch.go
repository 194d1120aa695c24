package watch

import (
	"fmt"

	"github.com/ralph-tmux/ralph.tmux/watch/agent"
)

// addArgs gives the agent's command the arguments of its turn hook, or says
// once why it cannot and that the screen tells the turn's end instead.
func (l *Loop) addArgs(args ...string) bool {
	out, why := l.Agent.Place(l.Command, args, nil)
	if why != "" {
		what, fix := "its turn-end hook", "run it directly"
		if h, ok := agent.HookAdvice[l.Agent.TurnHook]; ok {
			what, fix = h[0], h[1]
		}
		l.warnf("cannot add %s to %s: the turn end is read from the screen; %s", what, why, fix)
		return false
	}
	l.Command = out
	return true
}

// addedArgs says where the loop's own words stand in command, "AT:COUNT",
// compared with the person's plain one; "" when it added none.
func addedArgs(plain, command []string) string {
	if plain == nil || len(command) <= len(plain) {
		return ""
	}
	at := 0
	for at < len(plain) && plain[at] == command[at] {
		at++
	}
	return fmt.Sprintf("%d:%d", at, len(command)-len(plain))
}

// program names the agent's program for messages: claude, not the env in
// front of it.
func (l *Loop) program() string {
	if w := agent.ParseLaunch(l.Command).Word; w != "" || len(l.Command) == 0 {
		return w
	}
	return l.Command[0]
}
