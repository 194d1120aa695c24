package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/ralph-tmux/ralph.tmux/watch/tmux/tmuxtest"
)

// makeVariable is the words of a variable of the Makefile, as NAME = a \ b.
func makeVariable(t *testing.T, makefile, name string) []string {
	t.Helper()
	var words []string
	in := false
	for _, line := range strings.Split(makefile, "\n") {
		if !in {
			before, after, ok := strings.Cut(line, "=")
			if !ok || strings.TrimSpace(before) != name {
				continue
			}
			in, line = true, after
		}
		more := strings.HasSuffix(strings.TrimSpace(line), `\`)
		words = append(words, strings.Fields(strings.TrimSuffix(strings.TrimSpace(line), `\`))...)
		if !more {
			break
		}
	}
	if !in {
		t.Fatalf("the Makefile has no %s variable", name)
	}
	return words
}

var fuzzFunc = regexp.MustCompile(`(?m)^func (Fuzz\w+)\(\w+ \*testing\.F\)`)

// make fuzz fuzzes every fuzz function of the module in its own package:
// go test -fuzz of a package without the function fuzzes nothing and passes.
func TestMakeFuzzFuzzesEveryFuzzFunction(t *testing.T) {
	root, _ := filepath.Abs("../..")
	makefile, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	listed := makeVariable(t, string(makefile), "FUZZ")
	if !strings.Contains(string(makefile), "$(foreach target,$(FUZZ),") {
		t.Error("the fuzz target does not run the FUZZ list")
	}
	var found []string
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "bin") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		for _, m := range fuzzFunc.FindAllStringSubmatch(string(src), -1) {
			found = append(found, "./"+filepath.ToSlash(rel)+":"+m[1])
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(found) < 10 {
		t.Fatalf("found only %d fuzz functions: %v", len(found), found)
	}
	for _, f := range found {
		if !slices.Contains(listed, f) {
			t.Errorf("%s is not in the Makefile's FUZZ list: make fuzz never fuzzes it", f)
		}
	}
	for _, l := range listed {
		if !slices.Contains(found, l) {
			t.Errorf("the Makefile's FUZZ lists %s, which is no fuzz function of that package", l)
		}
	}
}

// make test-agents picks the real agents' tests by the names that
// tmuxtest.Agent holds every such test to: one pattern in both places.
func TestMakeTestAgentsPicksTheTestsTmuxtestAgentAllows(t *testing.T) {
	makefile, err := os.ReadFile("../../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(makeVariable(t, string(makefile), "AGENT_TESTS"), " "); got != tmuxtest.AgentTests {
		t.Errorf("the Makefile's AGENT_TESTS is %q, tmuxtest.AgentTests %q", got, tmuxtest.AgentTests)
	}
	if !strings.Contains(string(makefile), "RALPH_TEST_TIER=agents $(GOTEST) -run '$(AGENT_TESTS)'") {
		t.Error("make test-agents does not run the AGENT_TESTS in the agents tier")
	}
}
