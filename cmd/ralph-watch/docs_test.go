package main

import (
	"flag"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/ralph-tmux/ralph.tmux/watch/config"
)

// Every subcommand and every flag of every command is documented in the
// man page; each flag of run with its environment variable and default.
func TestManPageDocumentsEveryFlag(t *testing.T) {
	page, err := os.ReadFile("../../man/ralph-watch.1")
	if err != nil {
		t.Fatal(err)
	}
	// roff escapes hyphens; compare with them unescaped.
	text := strings.ReplaceAll(string(page), `\-`, "-")
	tree := binaryTree()
	for path, flags := range tree.flags {
		for _, f := range flags {
			if !strings.Contains(text, f) {
				t.Errorf("man page lacks %s flag %s", strings.TrimSpace("ralph-watch "+path), f)
			}
		}
	}
	commands := text[strings.Index(text, ".SH COMMANDS"):strings.Index(text, ".SH OPTIONS")]
	for _, sub := range tree.subs[""] {
		if !regexp.MustCompile(`(?m)^\.TP\n\.BR? (.*"\s)?` + sub + `\b`).MatchString(commands) {
			t.Errorf("man page has no COMMANDS entry for %s", sub)
		}
	}
	runCommand(env{Getenv: os.Getenv}).FlagSet.VisitAll(func(f *flag.Flag) {
		if len(f.Name) == 1 {
			return // an alias, documented with its long name
		}
		entry := manEntry(text, "--"+f.Name)
		if envVar := "RALPH_" + strings.NewReplacer("-", "_", ".", "_", "/", "_").Replace(strings.ToUpper(f.Name)); !strings.Contains(entry, envVar) {
			t.Errorf("man page: --%s does not name %s", f.Name, envVar)
		}
		if !isZeroDefault(f.DefValue) && !mentionsDefault(entry, f.DefValue) {
			t.Errorf("man page: --%s does not give its default %s:\n%s", f.Name, f.DefValue, entry)
		}
	})
	if groff, err := exec.LookPath("groff"); err == nil {
		out, err := exec.Command(groff, "-man", "-ww", "-z", "../../man/ralph-watch.1").CombinedOutput()
		if err != nil || len(out) > 0 {
			t.Errorf("groff warns: %v\n%s", err, out)
		}
	}
}

// manEntry is the OPTIONS entry whose tag names flag: from its .TP to the next.
func manEntry(text, flag string) string {
	opts := text[strings.Index(text, ".SH OPTIONS"):]
	opts = opts[:strings.Index(opts[1:], "\n.SH ")+1]
	for _, e := range strings.Split(opts, "\n.TP\n") {
		tag, _, _ := strings.Cut(e, "\n")
		if regexp.MustCompile(regexp.QuoteMeta(flag) + `\b([^-]|$)`).MatchString(tag) {
			return e
		}
	}
	return ""
}

// mentionsDefault: the entry says "default" and gives value, as written
// or as the same duration (180s for 3m0s).
func mentionsDefault(entry, value string) bool {
	if !strings.Contains(strings.ToLower(entry), "default") {
		return false
	}
	want, isDuration := config.ParseDuration(value)
	for _, w := range regexp.MustCompile(`[\w.]+`).FindAllString(entry, -1) {
		if w == value {
			return true
		}
		if d, err := config.ParseDuration(w); isDuration == nil && err == nil && d == want && strings.ContainsAny(w, "smh") {
			return true
		}
	}
	return false
}

func TestReadmeStartsWithTheTwoCommands(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	head := strings.Join(strings.SplitN(string(readme), "\n", 8)[:7], "\n")
	for _, want := range []string{"make demo", "make test"} {
		if !strings.Contains(head, want) {
			t.Errorf("README's first lines lack %q:\n%s", want, head)
		}
	}
}
