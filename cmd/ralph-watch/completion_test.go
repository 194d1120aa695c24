package main

import (
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/peterbourgon/ff/v3/ffcli"

	"github.com/ralph-tmux/ralph.tmux/completions"
)

// commandTree is what the binary offers: for each command path ("" for
// ralph-watch itself, "run", "demo agent"), its subcommands and its flags as
// typed (-t, --target).
type commandTree struct {
	subs, flags map[string][]string
}

func binaryTree() commandTree {
	tree := commandTree{subs: map[string][]string{}, flags: map[string][]string{}}
	var walk func(path string, c *ffcli.Command)
	walk = func(path string, c *ffcli.Command) {
		for _, s := range c.Subcommands {
			tree.subs[path] = append(tree.subs[path], s.Name)
			walk(strings.TrimSpace(path+" "+s.Name), s)
		}
		tree.flags[path] = []string{} // every command has an entry, with flags or not
		c.FlagSet.VisitAll(func(f *flag.Flag) { tree.flags[path] = append(tree.flags[path], dashes(f.Name)) })
	}
	walk("", rootCommand(env{Getenv: os.Getenv}))
	return tree
}

// section is the text between start and the first end after it.
func section(t *testing.T, text, start, end string) string {
	t.Helper()
	i := strings.Index(text, start)
	if i < 0 {
		t.Fatalf("no %q", start)
	}
	j := strings.Index(text[i:], end)
	if j < 0 {
		t.Fatalf("no %q after %q", end, start)
	}
	return text[i : i+j]
}

// fileTree reads the subcommands and flags a completion file offers from
// the shape each file keeps (see the files: one line per flag).
func fileTree(t *testing.T, shell, text string) commandTree {
	tree := commandTree{subs: map[string][]string{}, flags: map[string][]string{}}
	add := func(m map[string][]string, labels []string, words ...string) {
		for _, l := range labels {
			m[l] = append(m[l], words...)
		}
	}
	switch shell {
	case "bash":
		subs := section(t, text, "_ralph_watch_subcommands() {", "\n}")
		for _, m := range regexp.MustCompile(`(?m)^\s*('?'?|[a-z]+)\) echo ([^;]+);;`).FindAllStringSubmatch(subs, -1) {
			add(tree.subs, []string{strings.Trim(m[1], "'")}, strings.Fields(m[2])...)
		}
		flags := section(t, text, "_ralph_watch_flags() {", "\n}")
		for _, m := range regexp.MustCompile(`(?s)([a-z][a-z| ]*)\) flags\+?=\((.*?)\) ;;`).FindAllStringSubmatch(flags, -1) {
			var labels []string
			for _, l := range strings.Split(m[1], "|") {
				labels = append(labels, strings.TrimSpace(l))
			}
			for _, f := range strings.Fields(m[2]) {
				add(tree.flags, labels, strings.TrimSuffix(f, "="))
			}
		}
	case "zsh":
		subs := section(t, text, "local -a subcommands=(", "\n  )")
		for _, m := range regexp.MustCompile(`(?m)^\s*'([a-z]+):`).FindAllStringSubmatch(subs, -1) {
			add(tree.subs, []string{""}, m[1])
		}
		loopFlags := section(t, text, "local -a loop_flags=(", "\n      )")
		arms := section(t, text, "case $words[1] in", "\n      esac")
		for _, m := range regexp.MustCompile(`(?ms)^ {8}([a-z|]+)\)\n(.*?)^ {10};;`).FindAllStringSubmatch(arms, -1) {
			labels := strings.Split(m[1], "|")
			specs := m[2]
			if strings.Contains(specs, "$loop_flags") {
				specs += loopFlags
			}
			for _, f := range regexp.MustCompile(`'\*?(-{1,2}[A-Za-z0-9-]+)[=\[]`).FindAllStringSubmatch(specs, -1) {
				add(tree.flags, labels, f[1])
			}
			for _, s := range regexp.MustCompile(`'1:subcommand:\(\((\w+)\\:`).FindAllStringSubmatch(m[2], -1) {
				add(tree.subs, labels, s[1])
			}
		}
	case "fish":
		using := regexp.MustCompile(`-n '__ralph_watch_using ([a-z ]+)[;']`)
		for _, line := range strings.Split(text, "\n") {
			if !strings.HasPrefix(line, "complete -c ralph-watch ") {
				continue
			}
			arg := regexp.MustCompile(` -a (\w+) `).FindStringSubmatch(line)
			if strings.Contains(line, "-n 'not __ralph_watch_subcommand'") && arg != nil {
				add(tree.subs, []string{""}, arg[1])
				continue
			}
			u := using.FindStringSubmatch(line)
			if u == nil {
				continue
			}
			labels := strings.Fields(u[1])
			if l := regexp.MustCompile(` -l (\S+)`).FindStringSubmatch(line); l != nil {
				add(tree.flags, labels, "--"+l[1])
			} else if s := regexp.MustCompile(` -s (\S)`).FindStringSubmatch(line); s != nil {
				add(tree.flags, labels, "-"+s[1])
			} else if arg != nil && strings.Contains(line, "count (commandline -opc)") {
				add(tree.subs, labels, arg[1])
			}
		}
	}
	return tree
}

// compareWords reports what want has that got lacks and the reverse.
func compareWords(t *testing.T, where, what string, got, want []string) {
	t.Helper()
	for _, w := range want {
		if !slices.Contains(got, w) {
			t.Errorf("%s lacks %s %s (add one line for it)", where, what, w)
		}
	}
	for _, g := range got {
		if !slices.Contains(want, g) {
			t.Errorf("%s offers %s %s, which the binary does not have", where, what, g)
		}
	}
}

func compareTrees(t *testing.T, file string, got, want commandTree) {
	t.Helper()
	for _, m := range []struct {
		what      string
		got, want map[string][]string
	}{{"subcommand", got.subs, want.subs}, {"flag", got.flags, want.flags}} {
		paths := map[string]bool{}
		for p := range m.got {
			paths[p] = true
		}
		for p := range m.want {
			paths[p] = true
		}
		for p := range paths {
			compareWords(t, file+": "+strings.TrimSpace("ralph-watch "+p), m.what, m.got[p], m.want[p])
		}
	}
}

// Every subcommand and flag of the binary, and nothing else, is in each
// completion file: adding a flag to a FlagSet fails here until it is added
// to the three files.
func TestCompletionFilesKnowEveryFlagOfTheBinary(t *testing.T) {
	want := binaryTree()
	for _, f := range []struct{ shell, file string }{
		{"bash", "ralph-watch.bash"}, {"zsh", "_ralph-watch"}, {"fish", "ralph-watch.fish"},
	} {
		text, err := os.ReadFile(filepath.Join("../../completions", f.file))
		if err != nil {
			t.Fatal(err)
		}
		embedded, err := completions.Script(f.shell)
		if err != nil || embedded != string(text) {
			t.Errorf("completion %s: not the embedded completions/%s (%v)", f.shell, f.file, err)
		}
		compareTrees(t, "completions/"+f.file, fileTree(t, f.shell, string(text)), want)
	}
}
