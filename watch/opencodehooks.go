package watch

import (
	"os"
	"strings"

	"github.com/ralph-tmux/ralph.tmux/watch/agent"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
)

// installOpenCodePlugin gives OpenCode a plugin that reports its events
// (agent.OpenCodePlugin), named in the config layer it reads from
// OPENCODE_CONFIG_CONTENT, the person's own layer kept; the person's files
// are not written. A command that sets that variable itself keeps it, and
// the screen tells the turn's end.
func (l *Loop) installOpenCodePlugin(call func(name string) []string) bool {
	launch := agent.ParseLaunch(l.Command)
	for _, w := range l.Command[:max(launch.Index, 0)] {
		if strings.HasPrefix(w, agent.OpenCodeConfigVar+"=") || w == "-i" || w == "--ignore-environment" {
			return false
		}
	}
	path := l.Store.Path(state.OpenCodePlugin)
	content, err := agent.OpenCodeConfig(os.Getenv(agent.OpenCodeConfigVar), path)
	if err == nil {
		err = os.WriteFile(path, agent.OpenCodePlugin(l.Store.Dir, call), 0o600)
	}
	if err != nil {
		l.warnf("cannot give OpenCode its plugin (%v): the turn end is read from the screen", err)
		return false
	}
	l.hookEnv = []string{agent.OpenCodeConfigVar + "=" + content}
	for _, e := range agent.OpenCodeEvents {
		l.hooked[e.Name] = true
	}
	return true
}

// installCopilotPlugin gives Copilot CLI a plugin folder whose hooks report
// its turns (agent.CopilotPlugin), by --plugin-dir; its own plugins and
// hooks still run.
func (l *Loop) installCopilotPlugin(call func(name string) []string) bool {
	dir := l.Store.Path(state.CopilotPlugin)
	if err := agent.CopilotPlugin(dir, call); err != nil {
		l.warnf("cannot give Copilot CLI its hooks (%v): the turn end is read from the screen", err)
		return false
	}
	if !l.addArgs("--plugin-dir", dir) {
		return false
	}
	for _, e := range agent.CopilotEvents {
		l.hooked[e.Name] = true
	}
	return true
}
