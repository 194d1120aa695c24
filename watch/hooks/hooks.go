// Package hooks answers "how does the agent tell the loop its state?": it
// installs what makes the agent report its own turn's end, questions and
// failures to the watcher (Claude Code's hooks, Codex's notify program,
// Gemini CLI's overlay, OpenCode's and Copilot CLI's plugins), gives the
// command and environment the agent then runs with, and reads its reports.
package hooks

import (
	"cmp"
	"os"
	"strings"

	"github.com/ralph-tmux/ralph.tmux/watch/agent"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
)

// Hooks is what makes the agent report its own state to the watcher
// (its turn's end, a question, a failure), installed once when the loop
// starts: the command the agent then runs with, the environment its hooks
// need, which hooks report, and whether they stopped reaching the watcher.
// The loop's settings are never changed: the command run is kept here.
type Hooks struct {
	cfg       Settings
	store     *state.Store                  // the loop's folder: the hooks' files and records
	iteration func() int                    // the loop's iteration now (its record's): a record of another is not this agent's
	warnf     func(format string, a ...any) // the loop's warnings

	command []string        // what runs: the person's command, with the hooks' arguments
	plain   []string        // the command without them; nil: none were added
	env     []string        // NAME=value the agent runs with for its hooks (Gemini CLI's overlay)
	on      bool            // the agent reports the end of its turns itself
	hooked  map[string]bool // what its installed hooks report (agent.HookTurnEnd, …)
	lost    bool            // they did not report: the screen tells from now on
}

// Settings are what the hooks read of the loop's settings (the fields of
// watch.Config of the same names).
type Settings struct {
	Command    []string // the person's command
	Executable string   // this program, which the hooks call
	PromptMode string
	TurnHook   bool // install the agent's hooks at all
	Agent      agent.Profile
	AgentHome  string // the HOME the agent runs with; "": the watcher's
}

// New gives a loop its agent's hooks, not installed yet: the loop's folder
// holds their files, iteration is the loop's iteration now, warnf says what
// could not be installed.
func New(cfg Settings, store *state.Store, iteration func() int, warnf func(format string, a ...any)) *Hooks {
	return &Hooks{cfg: cfg, store: store, iteration: iteration, warnf: warnf, command: cfg.Command}
}

// Install writes what makes the agent report its own state to the
// watcher, and adds it to the command: Claude Code's hooks in a --settings
// file, Codex's notify program.
func (h *Hooks) Install() {
	if !h.cfg.TurnHook || h.cfg.Executable == "" || h.cfg.PromptMode != agent.ModeType || len(h.command) == 0 {
		return
	}
	call := func(name string) []string {
		return []string{h.cfg.Executable, "hook", name, "--state", h.store.Dir}
	}
	h.hooked, h.plain = map[string]bool{}, h.command
	switch h.cfg.Agent.TurnHook {
	case agent.HookClaudeStop:
		if h.cfg.Agent.Has(h.command, []string{"--settings"}) {
			return // the person's own settings win; the screen tells the turn's end
		}
		path := h.store.Path(state.ClaudeSettings)
		if err := os.WriteFile(path, agent.ClaudeSettings(call), 0o600); err != nil {
			h.warnf("write claude settings: %v", err)
			return
		}
		if !h.addArgs("--settings", path) {
			return
		}
		for _, e := range agent.ClaudeEvents {
			h.hooked[e.Name] = true
		}
	case agent.HookCodexNotify:
		if !h.addArgs("-c", agent.CodexNotify(call(agent.HookTurnEnd))) {
			return
		}
		h.hooked[agent.HookTurnEnd] = true
	case agent.HookGeminiHome:
		if !h.installGemini(call) {
			return
		}
	case agent.HookOpenCode:
		if !h.installOpenCode(call) {
			return
		}
	case agent.HookCopilot:
		if !h.installCopilot(call) {
			return
		}
	default:
		return
	}
	h.on = true
}

// Record returns this iteration's record of name: from a hook the
// watcher installed, or one the person configured themselves (records are
// cleared before each agent starts, so one of this iteration is its agent's).
func (h *Hooks) Record(name string) (agent.HookRecord, bool) {
	if h.store == nil {
		return agent.HookRecord{}, false
	}
	r, ok := agent.ReadHook(h.store, name)
	if !ok || r.Iteration != h.iteration() {
		return agent.HookRecord{}, false
	}
	return r, true
}

// Clear removes the hooks' records before an agent starts.
func (h *Hooks) Clear() {
	for _, name := range agent.HookNames {
		_ = os.Remove(h.store.Path(name))
	}
	_ = os.Remove(h.store.Path(state.AfterExitFile)) // the loop goes on: an agent's exit is the loop's to judge
}

// addArgs gives the agent's command the arguments of its turn hook, or says
// once why it cannot and that the screen tells the turn's end instead.
func (h *Hooks) addArgs(args ...string) bool {
	out, why := h.cfg.Agent.Place(h.command, args, nil)
	if why != "" {
		what, fix := "its turn-end hook", "run it directly"
		if h, ok := agent.HookAdvice[h.cfg.Agent.TurnHook]; ok {
			what, fix = h[0], h[1]
		}
		h.warnf("cannot add %s to %s: the turn end is read from the screen; %s", what, why, fix)
		return false
	}
	h.command = out
	return true
}

// installGemini gives Gemini CLI the loop's hooks through an overlay of
// its home (agent.GeminiOverlay), which the agent finds by GEMINI_CLI_HOME in
// its environment; the person's files are not written. A command that sets
// that variable itself, or a settings.json that cannot be read, keeps the
// command as given: the screen tells the turn's end.
func (h *Hooks) installGemini(call func(name string) []string) bool {
	launch := agent.ParseLaunch(h.command)
	for _, w := range h.command[:max(launch.Index, 0)] {
		if strings.HasPrefix(w, agent.GeminiHomeVar+"=") || w == "-i" || w == "--ignore-environment" {
			return false // the person's own Gemini home, or no environment of ours reaches it
		}
	}
	// The home it runs with: the one its command gives it (env HOME=/x
	// gemini), else the loop's AgentHome, else the watcher's.
	base := cmp.Or(agent.Getenv(agent.CommandEnv(h.command, false), nil)("HOME"), h.cfg.AgentHome,
		os.Getenv(agent.GeminiHomeVar), os.Getenv("HOME"))
	if base == "" {
		return false
	}
	dir := h.store.Path(state.GeminiHome)
	if err := agent.GeminiOverlay(base, dir, call); err != nil {
		h.warnf("cannot give Gemini CLI its hooks (%v): the turn end is read from the screen; "+
			"configure them in ~/.gemini/settings.json yourself (ralph-watch hook --help)", err)
		return false
	}
	// Gemini CLI starts itself a second time, to raise its heap limit
	// (about a second of each iteration's start); the loop's agent, started
	// afresh each iteration, runs in its first process.
	h.env = []string{agent.GeminiHomeVar + "=" + dir, "GEMINI_CLI_NO_RELAUNCH=true"}
	for _, e := range agent.GeminiEvents {
		h.hooked[e.Name] = true
	}
	return true
}

// Getenv is the agent's environment as far as the watcher knows it:
// what it gave the agent for its hooks (Gemini CLI's GEMINI_CLI_HOME, where
// its chats then are), its home when the loop was told it (AgentHome), else
// the watcher's own.
func (h *Hooks) Getenv(name string) string {
	for _, kv := range h.env {
		if k, v, _ := strings.Cut(kv, "="); k == name {
			return v
		}
	}
	if name == "HOME" && h.cfg.AgentHome != "" {
		return h.cfg.AgentHome
	}
	return os.Getenv(name)
}

// installOpenCode gives OpenCode a plugin that reports its events
// (agent.OpenCodePlugin), named in the config layer it reads from
// OPENCODE_CONFIG_CONTENT, the person's own layer kept; the person's files
// are not written. A command that sets that variable itself keeps it, and
// the screen tells the turn's end.
func (h *Hooks) installOpenCode(call func(name string) []string) bool {
	launch := agent.ParseLaunch(h.command)
	for _, w := range h.command[:max(launch.Index, 0)] {
		if strings.HasPrefix(w, agent.OpenCodeConfigVar+"=") || w == "-i" || w == "--ignore-environment" {
			return false
		}
	}
	path := h.store.Path(state.OpenCodePlugin)
	content, err := agent.OpenCodeConfig(os.Getenv(agent.OpenCodeConfigVar), path)
	if err == nil {
		err = os.WriteFile(path, agent.OpenCodePlugin(h.store.Dir, call), 0o600)
	}
	if err != nil {
		h.warnf("cannot give OpenCode its plugin (%v): the turn end is read from the screen", err)
		return false
	}
	h.env = []string{agent.OpenCodeConfigVar + "=" + content}
	for _, e := range agent.OpenCodeEvents {
		h.hooked[e.Name] = true
	}
	return true
}

// installCopilot gives Copilot CLI a plugin folder whose hooks report
// its turns (agent.CopilotPlugin), by --plugin-dir; its own plugins and
// hooks still run.
func (h *Hooks) installCopilot(call func(name string) []string) bool {
	dir := h.store.Path(state.CopilotPlugin)
	if err := agent.CopilotPlugin(dir, call); err != nil {
		h.warnf("cannot give Copilot CLI its hooks (%v): the turn end is read from the screen", err)
		return false
	}
	if !h.addArgs("--plugin-dir", dir) {
		return false
	}
	for _, e := range agent.CopilotEvents {
		h.hooked[e.Name] = true
	}
	return true
}

// Drop runs the agent as the person gave it from now on: without the hooks'
// arguments and environment, its screen telling its state.
func (h *Hooks) Drop() {
	h.command, h.plain, h.env = h.plain, nil, nil
	h.on, h.hooked, h.lost = false, nil, true
}

// What an iteration reads of the hooks (iteration.Hooks).

func (h *Hooks) Command() []string        { return h.command }
func (h *Hooks) Plain() []string          { return h.plain }
func (h *Hooks) Env() []string            { return h.env }
func (h *Hooks) On() bool                 { return h.on }
func (h *Hooks) Reports(name string) bool { return h.hooked[name] }
func (h *Hooks) Lost() bool               { return h.lost }
func (h *Hooks) Lose()                    { h.lost = true }
