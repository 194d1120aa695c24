package watch

import (
	"cmp"
	"os"
	"strings"

	"github.com/ralph-tmux/ralph.tmux/watch/agent"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
)

// installGeminiHooks gives Gemini CLI the loop's hooks through an overlay of
// its home (agent.GeminiOverlay), which the agent finds by GEMINI_CLI_HOME in
// its environment; the person's files are not written. A command that sets
// that variable itself, or a settings.json that cannot be read, keeps the
// command as given: the screen tells the turn's end.
func (l *Loop) installGeminiHooks(call func(name string) []string) bool {
	launch := agent.ParseLaunch(l.Command)
	for _, w := range l.Command[:max(launch.Index, 0)] {
		if strings.HasPrefix(w, agent.GeminiHomeVar+"=") || w == "-i" || w == "--ignore-environment" {
			return false // the person's own Gemini home, or no environment of ours reaches it
		}
	}
	base := cmp.Or(l.AgentHome, os.Getenv(agent.GeminiHomeVar), os.Getenv("HOME"))
	if base == "" {
		return false
	}
	dir := l.Store.Path(state.GeminiHome)
	if err := agent.GeminiOverlay(base, dir, call); err != nil {
		l.warnf("cannot give Gemini CLI its hooks (%v): the turn end is read from the screen; "+
			"configure them in ~/.gemini/settings.json yourself (ralph-watch hook --help)", err)
		return false
	}
	// Gemini CLI starts itself a second time, to raise its heap limit
	// (about a second of each iteration's start); the loop's agent, started
	// afresh each iteration, runs in its first process.
	l.hookEnv = []string{agent.GeminiHomeVar + "=" + dir, "GEMINI_CLI_NO_RELAUNCH=true"}
	for _, e := range agent.GeminiEvents {
		l.hooked[e.Name] = true
	}
	return true
}

// agentGetenv is the agent's environment as far as the watcher knows it:
// what it gave the agent for its hooks (Gemini CLI's GEMINI_CLI_HOME, where
// its chats then are), its home when the loop was told it (AgentHome), else
// the watcher's own.
func (l *Loop) agentGetenv(name string) string {
	for _, kv := range l.hookEnv {
		if k, v, _ := strings.Cut(kv, "="); k == name {
			return v
		}
	}
	if name == "HOME" && l.AgentHome != "" {
		return l.AgentHome
	}
	return os.Getenv(name)
}
