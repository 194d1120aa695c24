package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/agent"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux/tmuxtest"
)

// shellEnv is a private tmux server, a folder with PROMPT.md, two loops and
// a fan on disk and ralph-watch on PATH: what the completions look at.
type shellEnv struct {
	srv *tmuxtest.Server
	env []string
}

func newShellEnv(t *testing.T) *shellEnv {
	t.Helper()
	srv := tmuxtest.Start(t)
	bin := tmuxtest.Build(t, "cmd/ralph-watch")
	for _, name := range []string{"alpha", "beta"} {
		dir := filepath.Join(srv.Dir, "state", name)
		if err := os.MkdirAll(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "state.json"), []byte(`{"worker_name":"`+name+`"}`), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	fanDir := filepath.Join(srv.Dir, "state", "fans", "gamma") // a fan: status, report and the like take its name too
	if err := os.MkdirAll(fanDir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(fanDir, "fan.json"), []byte(`{"name":"gamma"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(srv.Dir, "PROMPT.md"), []byte("go on\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var env []string
	for _, kv := range srv.Env {
		if !strings.HasPrefix(kv, "PATH=") && !strings.HasPrefix(kv, "XDG_") {
			env = append(env, kv)
		}
	}
	env = append(env, "PATH="+filepath.Dir(bin)+":"+os.Getenv("PATH"), "XDG_CONFIG_HOME="+filepath.Join(srv.Dir, "home", ".config"))
	return &shellEnv{srv: srv, env: env}
}

func (s *shellEnv) panes(t *testing.T) []string {
	return strings.Fields(s.srv.Must("list-panes", "-a", "-F", "#{pane_id}"))
}

func requireShell(t *testing.T, shell string) string {
	t.Helper()
	path, err := exec.LookPath(shell)
	if err != nil {
		t.Skipf("%s not installed (apt-get install %s; .ci/run installs it)", shell, shell)
	}
	return path
}

// shell runs script in shell with args and returns its output lines,
// sorted, without duplicates; anything on stderr fails the test.
func (s *shellEnv) shell(t *testing.T, extraEnv []string, shell string, args ...string) []string {
	t.Helper()
	return completionWords(s.shellOutput(t, extraEnv, shell, args...))
}

// shellOutput runs shell with args in the test's folder and environment
// and returns what it printed; it fails the test on an error or a word on stderr.
func (s *shellEnv) shellOutput(t *testing.T, extraEnv []string, shell string, args ...string) string {
	t.Helper()
	cmd := exec.Command(requireShell(t, shell), args...)
	cmd.Dir = s.srv.Dir
	cmd.Env = append(append([]string(nil), s.env...), extraEnv...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil || stderr.Len() > 0 {
		t.Fatalf("%s %q: %v\n%s", shell, args, err, stderr.String())
	}
	return string(out)
}

// completionWords are the words a shell printed a line each (before a tab, a
// description), each once, sorted.
func completionWords(out string) []string {
	var lines []string
	for _, l := range strings.Split(out, "\n") {
		if l = strings.TrimSpace(strings.SplitN(l, "\t", 2)[0]); l != "" && !slices.Contains(lines, l) {
			lines = append(lines, l)
		}
	}
	sort.Strings(lines)
	return lines
}

// bashWords splits a command line into COMP_WORDS as readline does with
// its default COMP_WORDBREAKS: at blanks, and around = in --flag=value.
func bashWords(line string) []string {
	words := strings.Fields(line)
	if strings.HasSuffix(line, " ") {
		words = append(words, "")
	}
	var out []string
	for _, w := range words {
		if name, value, ok := strings.Cut(w, "="); ok && strings.HasPrefix(w, "-") {
			out = append(out, name, "=")
			if value != "" {
				out = append(out, value)
			}
			continue
		}
		out = append(out, w)
	}
	return out
}

const bashDriver = `source "$0"
COMP_WORDS=("$@") COMP_CWORD=$(($# - 1)) COMP_LINE="$*" COMP_POINT=${#COMP_LINE}
_ralph_watch
printf '%s\n' "${COMPREPLY[@]}"`

func sorted(words ...string) []string {
	out := slices.Clone(words)
	sort.Strings(out)
	return out
}

// The expectations all three shells share: line typed, completions offered.
func commonCases(t *testing.T, s *shellEnv, tree commandTree) []struct {
	line string
	want []string
} {
	t.Helper()
	cases := []struct {
		line string
		want []string
	}{
		{"ralph-watch ", sorted(tree.subs[""]...)},
		{"ralph-watch st", []string{"status", "stop"}},
		{"ralph-watch demo ", []string{"agent"}},
		{"ralph-watch run --prompt-mode ", []string{"arg", "stdin", "type"}},
		{"ralph-watch demo --attach ", []string{"auto", "no", "yes"}},
		{"ralph-watch status ", []string{"alpha", "beta", "gamma"}},
		{"ralph-watch report g", []string{"gamma"}},
		{"ralph-watch restore ", []string{"gamma"}}, // fans alone: a loop is resumed
		{"ralph-watch finish gamma --p", []string{"--patch", "--pr"}},
		{"ralph-watch logs --lines 5 a", []string{"alpha"}},
		{"ralph-watch replay ", []string{"alpha", "beta"}},
		{"ralph-watch replay alpha 3 --sp", []string{"--speed"}},
		{"ralph-watch stop alpha --k", []string{"--kill"}}, // flags follow the name in every command that takes one
		{"ralph-watch logs alpha --t", []string{"--tail"}},
		{"ralph-watch completion ", []string{"bash", "fish", "zsh"}},
		{"ralph-watch run --prompt-file PROM", []string{"PROMPT.md"}},
		{"ralph-watch run -S " + s.srv.Socket + " -t ", sorted(s.panes(t)...)},
	}
	for path, flags := range tree.flags {
		if path != "" {
			cases = append(cases, struct {
				line string
				want []string
			}{"ralph-watch " + path + " -", sorted(flags...)})
		}
	}
	return cases
}

func TestBashCompletesSubcommandsFlagsValuesLoopsAndPanes(t *testing.T) {
	t.Parallel()
	requireShell(t, "bash")
	s := newShellEnv(t)
	file, _ := filepath.Abs("../../completions/ralph-watch.bash")
	cases := append(commonCases(t, s, binaryTree()), []struct {
		line string
		want []string
	}{
		{"ralph-watch run --prompt-mode=", []string{"arg", "stdin", "type"}},
		{"ralph-watch run --prompt-mode=s", []string{"stdin"}},
		{"ralph-watch stop alpha ", nil},
		{"ralph-watch run --agent ", agent.Names()},
		{"ralph-watch run --agent c", []string{"claude", "codex", "copilot"}},
		{"ralph-watch run --prompt-file my", []string{"my prompt.md"}},
		{"ralph-watch trust sta", []string{"state"}},
		{"ralph-watch doctor --agent ", agent.Names()},
	}...)
	if err := os.WriteFile(filepath.Join(s.srv.Dir, "my prompt.md"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range cases {
		got := s.shell(t, nil, "bash", append([]string{"-c", bashDriver, file}, bashWords(tc.line)...)...)
		if !slices.Equal(got, tc.want) {
			t.Errorf("bash %q:\n got %q\nwant %q", tc.line, got, tc.want)
		}
	}
}

// A prompt file whose name has spaces is offered as one word, not split.
func TestBashCompletesAFileNameWithSpacesAsOneWord(t *testing.T) {
	t.Parallel()
	requireShell(t, "bash")
	s := newShellEnv(t)
	for _, name := range []string{"my prompt.md", "my plan  two.md"} {
		if err := os.WriteFile(filepath.Join(s.srv.Dir, name), []byte("go on\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	file, _ := filepath.Abs("../../completions/ralph-watch.bash")
	for _, tc := range []struct {
		line string
		want []string
	}{
		{"ralph-watch run --prompt-file my", []string{"my plan  two.md", "my prompt.md"}},
		{"ralph-watch run --prompt-file=my", []string{"my plan  two.md", "my prompt.md"}},
		{"ralph-watch run --done-file my", []string{"my plan  two.md", "my prompt.md"}},
	} {
		got := s.shell(t, nil, "bash", append([]string{"-c", bashDriver, file}, bashWords(tc.line)...)...)
		if !slices.Equal(got, tc.want) {
			t.Errorf("bash %q:\n got %q\nwant %q", tc.line, got, tc.want)
		}
	}
}

func TestFishCompletesSubcommandsFlagsValuesLoopsAndPanes(t *testing.T) {
	t.Parallel()
	requireShell(t, "fish")
	s := newShellEnv(t)
	file, _ := filepath.Abs("../../completions/ralph-watch.fish")
	cases := append(commonCases(t, s, binaryTree()), []struct {
		line string
		want []string
	}{
		{"ralph-watch run --prompt-mode=", []string{"--prompt-mode=arg", "--prompt-mode=stdin", "--prompt-mode=type"}},
		{"ralph-watch stop alpha ", nil},
		{"ralph-watch run -- sh -", nil},
		{"ralph-watch doctor --agent ", agent.Names()},
	}...)
	// One fish completes every line: its start was most of a case's CPU.
	var lines []string
	for _, tc := range cases {
		lines = append(lines, tc.line)
	}
	const end = "--- end of the completions ---"
	out := s.shellOutput(t, []string{"RW_FILE=" + file, "RW_LINES=" + strings.Join(lines, "\x1f")}, "fish", "-c",
		`source $RW_FILE; for line in (string split \x1f -- $RW_LINES); complete -C "$line"; echo '`+end+`'; end`)
	blocks := strings.Split(out, end)
	if len(blocks) != len(cases)+1 {
		t.Fatalf("fish completed %d lines of %d:\n%s", len(blocks)-1, len(cases), out)
	}
	for i, tc := range cases {
		got := completionWords(blocks[i])
		if tc.line == "ralph-watch run -- sh -" {
			// After --, the agent command's own completion: never ralph-watch's flags.
			if slices.Contains(got, "--detach") {
				t.Errorf("fish %q offers run's flags: %q", tc.line, got)
			}
			continue
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("fish %q:\n got %q\nwant %q", tc.line, got, tc.want)
		}
	}
}

// zshPane starts an interactive zsh in a new window of the private server
// with the completion loaded by compinit from a folder in fpath, as
// site-functions is; it fails the test if loading printed anything.
func (s *shellEnv) zshPane(t *testing.T, fpathDir string) string {
	t.Helper()
	zsh := requireShell(t, "zsh")
	zdotdir := filepath.Join(s.srv.Dir, "zdotdir")
	if err := os.MkdirAll(zdotdir, 0o700); err != nil {
		t.Fatal(err)
	}
	// With a dump, as a person's zsh keeps: the fpath folders are read by the first shell only.
	rc := "fpath=(" + fpathDir + " $fpath)\nautoload -Uz compinit && compinit -u -d " + filepath.Join(zdotdir, ".zcompdump") + "\nunsetopt list_ambiguous # list at the first Tab\nPS1='zsh> '\n" +
		"print -r -- \"loaded: ${_comps[ralph-watch]}\"\n"
	if err := os.WriteFile(filepath.Join(zdotdir, ".zshrc"), []byte(rc), 0o600); err != nil {
		t.Fatal(err)
	}
	// tmux gives a new pane the PATH of the client, whatever -e says: env sets it.
	args := []string{"new-window", "-d", "-P", "-F", "#{pane_id}", "-t", "main:", "-c", s.srv.Dir, "env"}
	for _, kv := range s.env {
		if strings.HasPrefix(kv, "PATH=") || strings.HasPrefix(kv, "RALPH_") {
			args = append(args, kv)
		}
	}
	pane := strings.TrimSpace(s.srv.Must(append(args, "ZDOTDIR="+zdotdir, zsh, "-i")...))
	tmuxtest.Eventually(t, 20*time.Second, "zsh to start", func() bool {
		return strings.Contains(s.srv.Capture(pane), "zsh> ")
	})
	if screen := s.srv.Capture(pane); !strings.HasPrefix(strings.TrimSpace(screen), "loaded: _ralph-watch\nzsh>") {
		t.Fatalf("zsh did not load the completion cleanly:\n%s", screen)
	}
	return pane
}

// zshCompletes types line and Tab into a fresh zsh and waits for every
// word of want on the screen below the prompt.
func (s *shellEnv) zshCompletes(t *testing.T, fpathDir, line string, want ...string) {
	t.Helper()
	pane := s.zshPane(t, fpathDir)
	s.srv.Must("send-keys", "-t", pane, "-l", line)
	s.srv.Must("send-keys", "-t", pane, "Tab")
	deadline := time.Now().Add(10 * time.Second)
	for {
		screen := s.srv.Capture(pane)
		_, after, _ := strings.Cut(screen, "zsh> ")
		missing := ""
		for _, w := range want {
			if !strings.Contains(after, w) {
				missing = w
			}
		}
		if missing == "" {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("zsh %q: no %q on screen:\n%s", line, missing, screen)
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestZshLoadsTheCompletionWithCompinitAndCompletes(t *testing.T) {
	t.Parallel()
	requireShell(t, "zsh")
	s := newShellEnv(t)
	dir, _ := filepath.Abs("../../completions")
	s.zshCompletes(t, dir, "ralph-watch sta", "ralph-watch status ")
	s.zshCompletes(t, dir, "ralph-watch run --prompt-mo", "ralph-watch run --prompt-mode")
	s.zshCompletes(t, dir, "ralph-watch run --prompt-mode ", "arg", "stdin", "type")
	s.zshCompletes(t, dir, "ralph-watch status ", "alpha", "beta", "gamma")
	s.zshCompletes(t, dir, "ralph-watch restore ", "ralph-watch restore gamma ")
	s.zshCompletes(t, dir, "ralph-watch stop --", "ralph-watch stop --kill ")
	s.zshCompletes(t, dir, "ralph-watch replay alpha --du", "--dump")
	s.zshCompletes(t, dir, "ralph-watch list --", "--json", "--names", "print only the loop names")
	s.zshCompletes(t, dir, "ralph-watch run -S "+s.srv.Socket+" -t ", s.panes(t)...)
}
