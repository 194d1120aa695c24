package main

import (
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
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
		// -Tutf8 as man(1) renders it on a terminal: the state marks are UTF-8.
		out, err := exec.Command(groff, "-Tutf8", "-man", "-ww", "-z", "../../man/ralph-watch.1").CombinedOutput()
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

// The README is a guide and the man page the reference: every command,
// flag and exit code the README names is one the binary has and the man
// page documents, and run's help and the man page give the same exit codes.
func TestReadmeAgreesWithHelpAndManPage(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile("../../man/ralph-watch.1")
	if err != nil {
		t.Fatal(err)
	}
	man := strings.ReplaceAll(string(page), `\-`, "-")
	tree := binaryTree()
	every := map[string]bool{} // every flag of every command
	for _, flags := range tree.flags {
		for _, f := range flags {
			every[f] = true
		}
	}
	for _, use := range readmeCommands(string(readme)) {
		if _, ok := tree.flags[use.command]; !ok {
			t.Errorf("README names ralph-watch %s, which --help does not list", use.command)
			continue
		}
		for _, f := range use.flags {
			if !slices.Contains(tree.flags[use.command], f) {
				t.Errorf("README gives ralph-watch %s the flag %s, which its -h does not list", use.command, f)
			}
		}
	}
	for _, f := range longFlag.FindAllString(string(readme), -1) {
		if !every[f] {
			t.Errorf("README names the flag %s, which no command's -h lists", f)
		} else if !strings.Contains(man, f) {
			t.Errorf("README names the flag %s, which the man page lacks", f)
		}
	}
	manCodes := manExitCodes(man)
	helpCodes := helpExitCodes(runCommand(env{Getenv: os.Getenv}).LongHelp)
	if !slices.Equal(manCodes, helpCodes) {
		t.Errorf("exit codes: man page EXIT STATUS %v, run -h %v", manCodes, helpCodes)
	}
	prose := strings.Join(strings.Fields(string(readme)), " ")
	for _, m := range regexp.MustCompile(`\bexit (\d+)\b`).FindAllStringSubmatch(prose, -1) {
		if !slices.Contains(manCodes, m[1]) {
			t.Errorf("README names exit %s, which the man page's EXIT STATUS lacks (%v)", m[1], manCodes)
		}
	}
}

var longFlag = regexp.MustCompile(`--[a-z][a-z0-9-]*`)

// readmeUse is a command the README shows typed, with the flags given to it.
type readmeUse struct {
	command string
	flags   []string
}

// readmeCommands reads each "ralph-watch COMMAND ..." of the README: in a
// code block up to the line's end (continued by a trailing backslash), in
// prose up to the end of its code span. A placeholder (COMMAND) is skipped.
func readmeCommands(text string) []readmeUse {
	text = strings.ReplaceAll(text, "\\\n", " ")
	var uses []readmeUse
	for _, m := range regexp.MustCompile(`ralph-watch ([a-z][a-z-]*)`).FindAllStringSubmatchIndex(text, -1) {
		rest := text[m[1]:]
		for _, end := range []string{"\n", "`", "ralph-watch "} {
			rest, _, _ = strings.Cut(rest, end)
		}
		uses = append(uses, readmeUse{text[m[2]:m[3]], longFlag.FindAllString(rest, -1)})
	}
	return uses
}

// manExitCodes are the codes of the man page's EXIT STATUS entries.
func manExitCodes(man string) []string {
	_, section, _ := strings.Cut(man, ".SH EXIT STATUS")
	section, _, _ = strings.Cut(section, "\n.SH ")
	var codes []string
	for _, m := range regexp.MustCompile(`(?m)^\.TP\n\.B (\d+)$`).FindAllStringSubmatch(section, -1) {
		codes = append(codes, m[1])
	}
	return codes
}

// helpExitCodes are the codes of a help text's "Exit status: 0 done, 1 ..." paragraph.
func helpExitCodes(help string) []string {
	_, para, _ := strings.Cut(help, "Exit status:")
	para, _, _ = strings.Cut(para, "\n\n")
	var codes []string
	for _, m := range regexp.MustCompile(`(?:^|, )(\d+) `).FindAllStringSubmatch(strings.Join(strings.Fields(para), " ")+" ", -1) {
		codes = append(codes, m[1])
	}
	return codes
}

// Every link between the README and the docs/ pages reaches a file, and a
// #fragment one of its headings, as GitHub spells them.
func TestDocsLinksResolve(t *testing.T) {
	pages, _ := filepath.Glob("../../docs/*.md")
	for _, p := range append(pages, "../../README.md") {
		text, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range regexp.MustCompile(`\]\(([^)\s]+)\)`).FindAllStringSubmatch(string(text), -1) {
			file, fragment, _ := strings.Cut(m[1], "#")
			if strings.Contains(file, "://") {
				continue
			}
			target := p
			if file != "" {
				target = filepath.Join(filepath.Dir(p), file)
			}
			body, err := os.ReadFile(target)
			if err != nil {
				t.Errorf("%s links to %s: %v", p, m[1], err)
				continue
			}
			if fragment != "" && !slices.Contains(headingAnchors(string(body)), fragment) {
				t.Errorf("%s links to %s: %s has no such heading", p, m[1], target)
			}
		}
	}
}

// headingAnchors are a Markdown page's headings as GitHub anchors them:
// lower case, spaces to hyphens, punctuation dropped.
func headingAnchors(page string) []string {
	var anchors []string
	for _, m := range regexp.MustCompile(`(?m)^#+ (.*)$`).FindAllStringSubmatch(page, -1) {
		a := regexp.MustCompile(`[^\w\- ]`).ReplaceAllString(strings.ToLower(strings.TrimSpace(m[1])), "")
		anchors = append(anchors, strings.ReplaceAll(a, " ", "-"))
	}
	return anchors
}
