package main

import (
	"flag"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// Every flag of every command is documented in the man page and the README
// names the two commands a newcomer runs first.
func TestManPageDocumentsEveryFlag(t *testing.T) {
	page, err := os.ReadFile("../../man/ralph-watch.1")
	if err != nil {
		t.Fatal(err)
	}
	// roff escapes hyphens; compare with them unescaped.
	text := strings.ReplaceAll(string(page), `\-`, "-")
	e := env{Getenv: os.Getenv}
	for _, c := range []struct {
		name string
		fs   *flag.FlagSet
	}{{"run", runCommand(e).FlagSet}, {"demo", demoCommand(e).FlagSet}} {
		c.fs.VisitAll(func(f *flag.Flag) {
			dashes := "--"
			if len(f.Name) == 1 {
				dashes = "-"
			}
			if !strings.Contains(text, dashes+f.Name) {
				t.Errorf("man page lacks %s flag %s%s", c.name, dashes, f.Name)
			}
		})
	}
	if groff, err := exec.LookPath("groff"); err == nil {
		out, err := exec.Command(groff, "-man", "-ww", "-z", "../../man/ralph-watch.1").CombinedOutput()
		if err != nil || len(out) > 0 {
			t.Errorf("groff warns: %v\n%s", err, out)
		}
	}
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
