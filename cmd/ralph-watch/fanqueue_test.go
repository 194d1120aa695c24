package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// committingAgent is fanAgent that then commits as the template prompt
// asks: everything, its ticked plan line too, with a message of its own.
const committingAgent = fanAgent + `
git add -A && git -c user.name=agent -c user.email=agent@example.invalid commit -q -m "agent made $f"`

// fanWith writes agent as the fan's scripted agent.
func fanWith(c *cli, agent string) {
	c.t.Helper()
	if err := os.WriteFile(filepath.Join(c.srv.Dir, "agent.sh"), []byte(agent), 0o755); err != nil {
		c.t.Fatal(err)
	}
}

// The fan takes the agent's command after "--" as run does: its flags are
// the agent's (sh -c SCRIPT, claude -p), not the fan's.
func TestFanTakesAnAgentCommandWithFlagsAsRunDoes(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	repo := newFanRepo(c, "- [ ] Make file-a\n- [ ] Make file-b\n")
	args := fanArgs(c, "flags", "2")
	args = append(args[:len(args)-2], "sh", "-e", "-c", fanAgent, "agent")
	c.wantEnv(gitEnv, args, 0, "2 of 2 tasks landed on ralph/fan-flags", "")
	for _, f := range []string{"file-a", "file-b"} {
		c.git(repo, "cat-file", "-e", "ralph/fan-flags:"+f)
	}
}

// Tasks on adjacent lines of the plan, each ticked and committed by its
// agent: each lands as its agent made it, its message kept, whichever
// neighbour's tick landed first.
func TestFanLandsAnAgentsCommitsAsMadeBesideANeighboursTick(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	repo := newFanRepo(c, "- [ ] Make file-a\n- [ ] Make file-b\n- [ ] Make file-c\n- [ ] Make file-d\n")
	fanWith(c, committingAgent)
	c.wantEnv(gitEnv, fanArgs(c, "made", "2"), 0, "4 of 4 tasks landed on ralph/fan-made", "")
	got := strings.Fields(c.git(repo, "log", "--reverse", "--format=%s", "main..ralph/fan-made"))
	var subjects []string
	for i := 0; i+2 < len(got); i += 3 {
		subjects = append(subjects, strings.Join(got[i:i+3], " "))
	}
	if len(subjects) != 4 || len(got) != 12 {
		t.Fatalf("the fan's branch holds %q, want the four agents' commits", got)
	}
	for _, s := range subjects {
		if !strings.HasPrefix(s, "agent made file-") {
			t.Errorf("the fan's branch holds %q, want each commit as its agent made it:\n%s", s, strings.Join(subjects, "\n"))
		}
	}
	if plan := c.git(repo, "show", "ralph/fan-made:PLAN.md"); strings.Count(plan, "- [x]") != 4 || strings.Contains(plan, "<<<<") {
		t.Errorf("the fan's plan:\n%s", plan)
	}
}

// An agent that commits its tick, its task sent back for a failed check:
// the plan is the queue's in the hand-back as in the landing, the loop
// sent back works the task again and it lands.
func TestFanSendsBackATaskWhoseAgentCommittedItsTick(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	repo := newFanRepo(c, "- [ ] Make file-a\n- [ ] Make file-b\n- [ ] Make file-c\n")
	fanWith(c, committingAgent)
	check := `if [ -f file-a ] && [ -f file-b ] && [ ! -f fixed ]; then echo "file-a and file-b clash"; exit 1; fi`
	c.wantEnv(gitEnv, fanArgs(c, "tick", "2", "--check", check), 0, "3 of 3 tasks landed on ralph/fan-tick", "")
	sentBack := 0
	for _, e := range fanEvents(c, "tick") {
		if e.Event == "sent-back" {
			sentBack++
		}
	}
	if sentBack != 1 {
		t.Errorf("%d tasks sent back, want 1", sentBack)
	}
	c.git(repo, "cat-file", "-e", "ralph/fan-tick:fixed")
	if plan := c.git(repo, "show", "ralph/fan-tick:PLAN.md"); plan != "- [x] Make file-a\n- [x] Make file-b\n- [x] Make file-c\n" {
		t.Errorf("the fan's plan:\n%s", plan)
	}
	c.want([]string{"status", "tick"}, 0, "Tasks: 3 of 3 landed", "")
}
