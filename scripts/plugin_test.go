// Package scripts_test tests the tmux plugin (ralph.tmux and scripts/*.sh)
// end to end: a private tmux server, the plugin run the way tpm runs it, and
// a real client attached through a pseudo-terminal that presses the keys.
package scripts_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/tmux"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux/tmuxtest"
)

// The default keys, all in the prefix table.
var defaultKeys = map[string]string{
	"@ralph-loop-key":  "A",
	"@ralph-pause-key": "Z",
	"@ralph-stop-key":  "Q",
	"@ralph-popup-key": "W",
}

// Prefix-table keys that popular plugins bind: tmux-resurrect, tmux-yank,
// tmux-open, tmux-copycat, tmux-fingers, tmux-fzf, tmux-sessionist,
// tmux-logging, tmux-pain-control, tmux-sensible, tmux-urlview, tpm.
var pluginKeys = strings.Fields(`C-s C-r y Y o C-o / C-f C-g M-h C-u C-d F g C S X @
	P M-p M-P M-c h j k l C-h C-j C-k C-l | - \ _ < > H J K L R a C-a u I U M-u`)

func TestDefaultKeysShadowNoDefaultTmuxBindingNorPopularPlugin(t *testing.T) {
	t.Parallel()
	srv := tmuxtest.Start(t)
	bound := map[string]bool{}
	for _, line := range strings.Split(srv.Must("list-keys", "-T", "prefix"), "\n") {
		if f := strings.Fields(line); len(f) >= 4 {
			key := f[3]
			if f[1] == "-r" {
				key = f[4]
			}
			bound[strings.TrimPrefix(key, `\`)] = true
		}
	}
	if len(bound) < 50 {
		t.Fatalf("read only %d default bindings; list-keys changed its layout?", len(bound))
	}
	for option, key := range defaultKeys {
		if bound[key] {
			t.Errorf("%s %s is a default tmux binding", option, key)
		}
		for _, k := range pluginKeys {
			if k == key {
				t.Errorf("%s %s is a popular plugin's key", option, key)
			}
		}
	}
}

// A fake agent that takes the prompt and then works for a long while.
const slowAgent = `print fake agent, iteration {{iteration}}
ready
read
echo
print working on it
sleep 120s
exit 0
`

// A person presses the loop key in a pane whose folder has every character
// that could break quoting, confirms, and sees the loop start and count in
// the status line; the pause key pauses and resumes it, the stop key ends
// it; the plugin sourced again changes nothing.
func TestKeysLoopPauseResumeAndStopThePane(t *testing.T) {
	t.Parallel()
	srv, p := installTPM(t)
	dir := filepath.Join(srv.Dir, `it's a "dir" #{pane_id} $(touch pwned) ;`)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "PROMPT.md"), []byte("do the next task\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	agent := srv.FakeAgent("agent", slowAgent)
	p.configure(map[string]string{
		"status-right":          "#{ralph_status}| right",
		"@ralph-command":        shQuote(agent[0]) + " " + shQuote(agent[1]),
		"@ralph-max-iterations": "5",
	})
	pane := strings.TrimSpace(srv.Must("new-window", "-P", "-F", "#{pane_id}", "-t", "main:", "-c", tmux.Escape(tmux.EscapeFormat(dir)))) // -c expands formats
	p.source()
	keys, options := srv.Must("list-keys"), srv.Must("show-options", "-g")
	p.source()
	if again := srv.Must("list-keys"); again != keys {
		t.Errorf("sourcing twice changed the bindings:\n%s\nthen:\n%s", keys, again)
	}
	if again := srv.Must("show-options", "-g"); again != options {
		t.Errorf("sourcing twice changed the options:\n%s\nthen:\n%s", options, again)
	}
	if strings.Contains(p.statusRight(), "ralph_status") {
		t.Fatalf("#{ralph_status} not replaced: %q", srv.Option("", "status-right"))
	}

	p.attach()
	p.startWithLoopKey(pane)
	wantLive(t, srv, pane)
	name := srv.Option(pane, "@ralph-name")
	if !regexp.MustCompile(`^[A-Za-z0-9._-]+$`).MatchString(name) {
		t.Fatalf("loop name %q", name)
	}
	if got := p.statusRight(); !strings.Contains(got, "⟳ 1/5") {
		t.Errorf("status line %q lacks ⟳ 1/5", got)
	}
	st := loopState(t, srv, name)
	if st.PromptFile != filepath.Join(dir, "PROMPT.md") || st.PaneID != pane || st.MaxIterations != 5 {
		t.Errorf("loop state: prompt %q pane %s max %d", st.PromptFile, st.PaneID, st.MaxIterations)
	}
	tmuxtest.Eventually(t, 30*time.Second, "the agent to take the prompt", func() bool {
		return strings.Contains(srv.Capture(pane), "working on it")
	})

	p.press("Z")
	p.waitOption(pane, "@ralph-state", "paused")
	if got := p.statusRight(); !strings.Contains(got, "⏸ 1/5") {
		t.Errorf("status line %q lacks ⏸ 1/5", got)
	}
	p.press("Z")
	p.waitOption(pane, "@ralph-state", "running")

	p.press("Q")
	p.choose("Cancel", "q")
	p.press("Q")
	p.choose("Stop the loop (the agent runs on)", "y")
	p.waitOption(pane, "@ralph-state", "stopped")
	if got := p.statusRight(); !strings.Contains(got, "■ 1/5") {
		t.Errorf("status line %q lacks ■ 1/5", got)
	}
	for _, d := range []string{"/", dir, srv.Dir, p.dir, filepath.Join(srv.Dir, "home")} {
		if _, err := os.Stat(filepath.Join(d, "pwned")); err == nil {
			t.Errorf("a $(…) in the pane's folder ran: %s/pwned exists", d)
		}
	}
}

type loopFile struct {
	PromptFile          string   `json:"prompt_file"`
	PaneID              string   `json:"pane_id"`
	MaxIterations       int      `json:"max_iterations"`
	Command             []string `json:"command"`
	DonePattern         *string  `json:"done_pattern"`
	CheckDoneContinuous bool     `json:"check_done_continuous"`
	WatcherDir          string   `json:"watcher_dir"` // where ralph-watch run started
}

func loopState(t *testing.T, srv *tmuxtest.Server, name string) loopFile {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(srv.Dir, "state", name, "state.json"))
	if err != nil {
		t.Fatal(err)
	}
	var st loopFile
	if err := json.Unmarshal(b, &st); err != nil {
		t.Fatal(err)
	}
	return st
}

// An agent that works a while, and says it is done in its second iteration.
const finishingAgent = `ready
read
print working
iter 1 sleep 3s
from 2 print RALPH_DONE
sleep 300ms
exit 0
`

// Installed under $XDG_CONFIG_HOME with an awkward name, the plugin offers a
// starting prompt where there is none, marks the window while it loops,
// announces the loop's end on the client, and shows it in the popup.
func TestMissingPromptIsWrittenAndTheLoopsEndIsAnnounced(t *testing.T) {
	t.Parallel()
	srv := tmuxtest.Start(t)
	config := filepath.Join(srv.Dir, `my config's #{S} ;`)
	p := install(t, srv, filepath.Join(config, "tmux", "plugins", "ralph.tmux"), true)
	dir := filepath.Join(srv.Dir, "project")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	agent := srv.FakeAgent("agent", finishingAgent)
	p.configure(map[string]string{
		"status-right":          "#{ralph_status}",
		"window-status-format":  "#I:#W #{ralph_window}",
		"@ralph-command":        shQuote(agent[0]) + " " + shQuote(agent[1]),
		"@ralph-done-pattern":   "^RALPH_DONE$",
		"@ralph-max-iterations": "4",
	})
	pane := strings.TrimSpace(srv.Must("new-window", "-d", "-P", "-F", "#{pane_id}", "-t", "main:", "-c", dir))
	srv.Must("select-window", "-t", pane)
	p.source()
	p.attach()

	p.press("A")
	p.choose("Write a starting prompt there", "i")
	prompt := filepath.Join(dir, "PROMPT.md")
	tmuxtest.Eventually(t, 10*time.Second, "PROMPT.md", func() bool {
		b, _ := os.ReadFile(prompt)
		return strings.Contains(string(b), "RALPH_DONE")
	})
	p.waitMessage("wrote " + prompt)

	p.startWithLoopKey(pane)
	live := srv.Option(pane, "@ralph-live")
	window := srv.Must("display-message", "-p", "-t", pane, "#{E:window-status-format}")
	name := srv.Option(pane, "@ralph-name")
	p.waitOption(pane, "@ralph-state", "done")
	p.waitMessage("[ralph] " + name + ": done after 2 iterations")
	if got := p.statusRight(); !strings.Contains(got, "✓ 2/4") {
		t.Errorf("status line %q lacks ✓ 2/4", got)
	}
	if window := srv.Must("display-message", "-p", "-t", pane, "#{E:window-status-format}"); strings.Contains(window, "⟳") {
		t.Errorf("window status %q still shows the looping mark", window)
	}

	p.press("W")
	tmuxtest.Eventually(t, 10*time.Second, "the popup", func() bool {
		s := p.shown()
		return strings.Contains(s, "q: close") && regexp.MustCompile(`last iteration: \S+ \[DONE\] loop complete after 2 iterations reason=done_pattern`).MatchString(s)
	})
	if _, err := p.tty.Write([]byte("q")); err != nil {
		t.Fatal(err)
	}
	if live != "1" {
		wantLive(t, srv, pane) // the window was never marked: nothing said the loop lived
	}
	if !strings.Contains(window, "⟳") {
		t.Errorf("window status %q lacks the looping mark while the loop ran", window)
	}
}

// A tpm clone has the sources and no binary: the plugin builds ralph-watch
// into bin/ and says so; without Go it says what to install; a ralph-watch
// whose release differs from the plugin's tag is reported.
func TestBootstrapBuildsTheBinaryOrSaysWhatIsMissing(t *testing.T) {
	t.Parallel()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go not on PATH")
	}
	t.Run("builds", func(t *testing.T) {
		t.Parallel()
		if testing.Short() {
			t.Skip("a full go build")
		}
		srv := tmuxtest.Start(t)
		p := install(t, srv, filepath.Join(srv.Dir, "home", ".tmux", "plugins", "ralph.tmux"), false)
		copySources(t, p.dir)
		srv.Must("set-environment", "-g", "PATH", filepath.Dir(goBin)+":/usr/bin:/bin")
		// Go's caches, as a person who has built Go before has them: the
		// build is the plugin's, not a first download and compile of everything.
		for _, name := range []string{"GOCACHE", "GOMODCACHE"} {
			if out, err := exec.Command(goBin, "env", name).Output(); err == nil && strings.TrimSpace(string(out)) != "" {
				srv.Must("set-environment", "-g", name, strings.TrimSpace(string(out)))
			}
		}
		p.attach()
		p.source()
		p.waitMessage("building ralph-watch")
		tmuxtest.Eventually(t, 5*time.Minute, "bin/ralph-watch", func() bool {
			if strings.Contains(p.messages(), "go build failed") {
				log, _ := os.ReadFile(filepath.Join(p.dir, "bin", "build.log"))
				t.Fatalf("the plugin's build failed:\n%s", log)
			}
			return strings.Contains(p.messages(), "built "+filepath.Join(p.dir, "bin", "ralph-watch"))
		})
		out, err := exec.Command(filepath.Join(p.dir, "bin", "ralph-watch"), "version").CombinedOutput()
		if err != nil || !strings.HasPrefix(string(out), "ralph-watch ") {
			t.Errorf("built binary: %v: %s", err, out)
		}
	})
	t.Run("no go", func(t *testing.T) {
		t.Parallel()
		srv := tmuxtest.Start(t)
		p := install(t, srv, filepath.Join(srv.Dir, "home", ".tmux", "plugins", "ralph.tmux"), false)
		copySources(t, p.dir)
		srv.Must("set-environment", "-g", "PATH", "/usr/bin:/bin")
		if _, err := os.Stat("/usr/bin/go"); err == nil {
			t.Skip("go is in /usr/bin")
		}
		p.attach()
		p.source()
		p.waitMessage("Go is missing: install Go 1.22 or newer")
		p.press("A")
		p.waitMessage("ralph-watch not found")
	})
	t.Run("version mismatch", func(t *testing.T) {
		t.Parallel()
		srv := tmuxtest.Start(t)
		p := install(t, srv, filepath.Join(srv.Dir, "home", ".tmux", "plugins", "ralph.tmux"), false)
		for _, args := range [][]string{{"init", "-q"}, {"add", "."}, {"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "v"}, {"tag", "v9.9.9"}} {
			cmd := exec.Command("git", args...)
			cmd.Dir = p.dir
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("git %v: %v: %s", args, err, out)
			}
		}
		path := filepath.Join(srv.Dir, "path")
		if err := os.MkdirAll(path, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(path, "ralph-watch"), []byte("#!/bin/sh\necho ralph-watch v0.1.0\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		srv.Must("set-environment", "-g", "PATH", path+":/usr/bin:/bin")
		p.attach()
		p.source()
		p.waitMessage("ralph-watch v0.1.0 (" + filepath.Join(path, "ralph-watch") + ") does not match the plugin (v9.9.9)")
	})
}

// copySources copies what go build needs into a plugin folder, as a clone has it.
func copySources(t *testing.T, dir string) {
	t.Helper()
	for _, root := range []string{"../go.mod", "../go.sum", "../cmd", "../watch", "../completions"} {
		err := filepath.Walk(root, func(path string, info os.FileInfo, err error) error {
			if err != nil || info.IsDir() || strings.HasSuffix(path, "_test.go") || strings.Contains(path, "testdata") {
				return err
			}
			copyFile(t, path, filepath.Join(dir, strings.TrimPrefix(path, "../")))
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}
