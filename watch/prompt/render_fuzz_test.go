package prompt_test

import (
	"strings"
	"testing"

	"github.com/ralph-tmux/ralph.tmux/watch/prompt"
)

// FuzzCompose: the placeholder renderer leaves text without placeholders
// byte for byte, never expands what a value brings in, and Compose only adds
// around the rendered text.
func FuzzCompose(f *testing.F) {
	f.Add("Iteration {{iteration}} of {{max_iterations}}, {{remaining}} left for {{name}}.\n{{check_failures}}", 3, 10, "loop", "make test failed", "append", true)
	f.Add("{{{{iteration}}}} {{unknown}} {{", 0, 0, "", "", "replace", false)
	f.Add("no placeholders \x00\xff $(x) #{pane_id}", -5, 2, "n", "{{name}}", "prepend", true)
	f.Fuzz(func(t *testing.T, text string, iteration, max int, name, failures, action string, count bool) {
		v := prompt.Vars{Iteration: iteration, MaxIterations: max, Name: name, CheckFailures: failures}
		got := prompt.Render(text, v)
		if !strings.Contains(text, "{{") && got != text {
			t.Fatalf("Render changed text without placeholders: %q -> %q", text, got)
		}
		if !strings.Contains(name+failures, "{{") && !strings.Contains(text, "{{") && strings.Contains(got, "{{") {
			t.Fatalf("Render made a placeholder: %q -> %q", text, got)
		}
		composed := prompt.Compose(text, v, action, count)
		if failures == "" && !count && composed != got {
			t.Fatalf("Compose without failures or count = %q, want Render's %q", composed, got)
		}
		if count && !strings.HasPrefix(composed, prompt.IterationCount(iteration, max)) {
			t.Fatalf("Compose with count does not start with the count: %q", composed)
		}
	})
}
