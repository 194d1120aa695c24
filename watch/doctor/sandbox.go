package doctor

// Doctor's sandbox is a throwaway HOME and a fake model API. A command can
// replace them: a wrapper script that sets HOME or the API's address and
// key and then starts the agent, or `env HOME=… agent`. Its agent then runs
// with the person's own configuration and talks to their own API, and what
// doctor would see says nothing of a loop. Doctor reads the environment the
// agent's processes were started with and compares it with the one the
// loop's own shell in the pane had.

import (
	"path/filepath"
	"slices"
	"strings"

	"github.com/ralph-tmux/ralph.tmux/watch/agent"
)

// Bypass is what a command changed of doctor's sandbox.
type Bypass struct {
	Changes []Change `json:"changes"`
	Home    string   `json:"home,omitempty"`    // the HOME the agent ran with
	Config  string   `json:"config,omitempty"`  // its own settings file under that HOME
	Program []string `json:"program,omitempty"` // the program that ran with it, as started
}

// Change is one variable of the sandbox the agent ran with otherwise.
type Change struct {
	Name   string `json:"name"`
	Value  string `json:"value,omitempty"`  // as the agent had it; never a secret's
	Secret bool   `json:"secret,omitempty"` // a key or token: its value is never kept
	Unset  bool   `json:"unset,omitempty"`  // the agent ran without it
}

// String is the change for a person: NAME=value, a secret's value left out.
func (c Change) String() string {
	switch {
	case c.Unset:
		return c.Name + " unset"
	case c.Secret:
		return c.Name + " (its own)"
	}
	return c.Name + "=" + c.Value
}

// sandboxNames are the variables that make doctor's sandbox: HOME, the XDG
// folders, and every agent's configuration folder, credentials, API address
// and proxies (what cleanEnv keeps from the private server).
func sandboxNames() []string {
	names := []string{"HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"}
	for _, a := range []string{"claude", "codex", "gemini", "opencode", "copilot", ""} {
		s := agentEnv(a, "")
		for _, kv := range s.Env {
			name, _, _ := strings.Cut(kv, "=")
			names = append(names, name)
		}
		names = append(names, s.Unset...)
	}
	slices.Sort(names[1:]) // HOME first
	return slices.Compact(names)
}

// findBypass compares the environments of the pane's processes (root first,
// as agent.Procs gives them) with the root's, the loop's own shell. The
// command's own process comes next: if it was started with other sandbox
// variables, a wrapper exec'd the agent with them (or `env` did); if it is
// a shell (a wrapper script that does not exec), what it started is looked
// at in turn. What the agent itself starts is its own business (Claude Code
// starts git without its API key). nil when nothing changed.
func findBypass(profile string, procs []agent.Proc) *Bypass {
	if len(procs) < 2 || procs[0].Depth != 0 {
		return nil
	}
	root := envMap(procs[0].Env)
	names := sandboxNames()
	parents := map[int]bool{procs[0].PID: true}
	for _, p := range procs[1:] {
		if !parents[p.PPID] {
			continue
		}
		env := envMap(p.Env)
		var changes []Change
		for _, name := range names {
			was, inRoot := root[name]
			now, inAgent := env[name]
			if was == now && inRoot == inAgent {
				continue
			}
			c := Change{Name: name, Value: now, Secret: secretName(name), Unset: !inAgent}
			if c.Secret {
				c.Value = "" // never kept, never printed
			}
			changes = append(changes, c)
		}
		if len(changes) > 0 {
			b := &Bypass{Changes: changes, Home: env["HOME"], Program: p.Argv}
			if f := configFile(profile); f != "" && b.Home != "" {
				b.Config = filepath.Join(b.Home, f)
			}
			return b
		}
		if p.Depth == 1 && len(p.Argv) > 0 && shells[filepath.Base(p.Argv[0])] {
			parents[p.PID] = true // a wrapper script: what it starts is the agent
		}
	}
	return nil
}

// shells run wrapper scripts.
var shells = map[string]bool{"sh": true, "bash": true, "dash": true, "zsh": true, "ksh": true, "mksh": true, "busybox": true}

// secretName says whether a variable holds a secret, whose value is never
// printed (the names the loop key never writes down either).
func secretName(name string) bool {
	upper := strings.ToUpper(name)
	for _, w := range []string{"KEY", "TOKEN", "SECRET", "PASSWORD", "CREDENTIAL"} {
		if strings.Contains(upper, w) {
			return true
		}
	}
	return false
}

func envMap(env []string) map[string]string {
	m := map[string]string{}
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok {
			m[k] = v
		}
	}
	return m
}

// configFile is where, under its HOME, an agent keeps the settings doctor
// writes for it (see writeConfig).
func configFile(profile string) string {
	return map[string]string{
		"claude":   ".claude.json",
		"codex":    filepath.Join(".codex", "config.toml"),
		"gemini":   filepath.Join(".gemini", "settings.json"),
		"copilot":  filepath.Join(".copilot", "config.json"),
		"opencode": filepath.Join(".config", "opencode", "opencode.json"),
	}[profile]
}

// shownProgram is the program of a process as a person would name it: an
// interpreter's script with it (node …/cli.js), else the program alone.
func shownProgram(argv []string) string {
	if len(argv) == 0 {
		return ""
	}
	base := filepath.Base(argv[0])
	for _, interp := range []string{"node", "bun", "deno", "python", "python3", "ruby", "perl"} {
		if base == interp && len(argv) > 1 && !strings.HasPrefix(argv[1], "-") {
			return argv[0] + " " + argv[1]
		}
	}
	return argv[0]
}

// bypassWhat names what a bypass replaced: "HOME and model API", "HOME", ….
func bypassWhat(b *Bypass) string {
	home, api := false, false
	for _, c := range b.Changes {
		switch {
		case c.Name == "HOME" || strings.HasPrefix(c.Name, "XDG_") || strings.HasSuffix(c.Name, "_HOME") ||
			strings.Contains(c.Name, "CONFIG"):
			home = true
		default:
			api = true
		}
	}
	switch {
	case home && api:
		return "HOME and model API"
	case home:
		return "HOME"
	}
	return "model API"
}

// notChecked is the signal table of a check that did not run.
func notChecked(why string) []Signal {
	var out []Signal
	for _, t := range signalTitles {
		out = append(out, Signal{Key: t.Key, Title: t.Title, Status: Untried, Detail: "not checked: " + why})
	}
	return out
}
