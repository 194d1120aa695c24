package scripts_test

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/ralph-tmux/ralph.tmux/watch/agent"
)

// The loop key hides what ralph-watch hides: one rule, written twice.
func TestTheLoopKeyAndRalphWatchAgreeOnWhatIsASecret(t *testing.T) {
	t.Parallel()
	names := []string{"ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "GH_TOKEN", "OPENAI_API_KEY", "DB_PASSWORD", "PGPASSWORD",
		"AWS_SECret_access_key", "AUTH", "X_AUTH", "HTTP_AUTHORIZATION", "SESSION_COOKIE", "GOOGLE_APPLICATION_CREDENTIALS",
		"HOME", "ANTHROPIC_BASE_URL", "GIT_AUTHOR_NAME", "OAUTHLIB", "TERM", "KEYBOARD", "MONKEY"}
	script := `source ./foreground.sh; for n in "$@"; do secret_name "$n" && echo "$n"; done; true`
	out, err := exec.Command("bash", append([]string{"-c", script, "bash"}, names...)...).Output()
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, n := range names {
		if agent.SecretName(n) {
			want = append(want, n)
		}
	}
	if got := strings.Fields(string(out)); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("the loop key's secrets %q, ralph-watch's %q", got, want)
	}
}

// The menu shows @ralph-command with its secrets hidden, as ralph-watch records it.
func TestTheLoopKeyShowsACommandLineWithItsSecretsHidden(t *testing.T) {
	t.Parallel()
	for line, want := range map[string]string{
		"ANTHROPIC_API_KEY=sk-1 HOME=/x claude --model x": "ANTHROPIC_API_KEY=… HOME=/x claude --model x",
		`env GH_TOKEN='a b' OPENAI_API_KEY="c d" codex`:   "env GH_TOKEN=… OPENAI_API_KEY=… codex",
		"claude API_KEY=x":           "claude API_KEY=x", // the agent's own argument
		"  DB_PASSWORD=p123 ./agent": "  DB_PASSWORD=… ./agent",
	} {
		out, err := exec.Command("bash", "-c", `source ./foreground.sh; hide_line "$1"`, "bash", line).Output()
		if err != nil || string(out) != want {
			t.Errorf("hide_line %q = %q (%v), want %q", line, out, err, want)
		}
		if shown, _, _ := agent.HideSecrets([]string{line}, nil); shown[0] != want {
			t.Errorf("ralph-watch records %q as %q, the menu shows %q", line, shown[0], want)
		}
	}
}
