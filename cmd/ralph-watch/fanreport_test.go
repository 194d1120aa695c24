package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ralph-tmux/ralph.tmux/watch/fan"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
)

// landedAndRefused runs fan name on two tasks: task 1 lands; task 2's loop
// gets it done, but the queue's check refuses it on the fan's branch, and
// with one landing try it waits for review. It returns the repository and
// the commit that landed task 1.
func landedAndRefused(c *cli, name string) (repo, landed string) {
	c.t.Helper()
	repo = newFanRepo(c, "# Plan\n\n- [ ] Make file-a\n- [ ] Make file-b\n")
	check := `case "$PWD" in *-queue) if [ -f file-b ]; then echo "file-b clashes on the branch"; exit 1; fi ;; esac`
	c.wantEnv(gitEnv, fanArgs(c, name, "2", "--merge-attempts", "1", "--check", check), 3, "1 of 2 tasks landed on ralph/fan-"+name+", 1 waiting for review", "")
	for _, e := range fanEvents(c, name) {
		if e.Event == "landed" && e.Task == "1" {
			landed = e.Commit
		}
	}
	if landed == "" {
		c.t.Fatalf("task 1 did not land: %+v", fanEvents(c, name))
	}
	return repo, landed
}

func TestReportFanIsOnePageOfEveryTaskItsVerdictAndLandingLinkingEachLoopsOwnPage(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	_, landed := landedAndRefused(c, "night")
	page := filepath.Join(c.srv.Dir, "state", "fans", "night", "report.html")
	if out := c.want([]string{"report", "night"}, 0, "[ralph] night: report of the fan, 2 tasks and 2 loops (", ""); !strings.HasSuffix(out, ": "+page+"\n") {
		t.Errorf("report says %q, want the page %s", out, page)
	}
	data, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	rows := map[string]string{}
	for _, id := range []string{"1", "2"} {
		_, row, _ := strings.Cut(text, `<tr id="task-`+id+`"`)
		row, _, _ = strings.Cut(row, "</tr>")
		rows[id] = row
	}
	for id, want := range map[string][]string{
		"1": {`class="task-landed"`, "<td>Make file-a</td>", "<td>landed</td>", "<td>done</td>", `<a href="../../fan-night-1/report.html"><code>fan-night-1</code></a>`, "<code>" + landed[:10] + "</code>"},
		"2": {`class="task-needs-review"`, "<td>Make file-b</td>", "<td>needs-review</td>", "fails the check", "file-b clashes on the branch", "ralph/fan-night-2"},
	} {
		for _, w := range want {
			if !strings.Contains(rows[id], w) {
				t.Errorf("task %s's row lacks %q:\n%s", id, w, rows[id])
			}
		}
	}
	for _, want := range []string{"<title>ralph fan night: report</title>", "1 of 2 landed, 1 waiting for review", "<code>ralph/fan-night</code>",
		"<td>landed</td><td><code>" + landed[:10] + "</code>"} {
		if !strings.Contains(text, want) {
			t.Errorf("the fan's page lacks %q", want)
		}
	}
	for _, loop := range []string{"fan-night-1", "fan-night-2"} { // each loop's own page, as report LOOP writes it
		own, err := os.ReadFile(filepath.Join(c.srv.Dir, "state", loop, "report.html"))
		if err != nil || !strings.Contains(string(own), "<title>ralph loop "+loop+": report</title>") {
			t.Errorf("%s's own page: %v", loop, err)
		}
	}
	c.want([]string{"status", "night"}, 0, "Report: "+page+" (", "")
	other := filepath.Join(c.srv.Dir, "night.html")
	c.want([]string{"report", "night", "-o", other}, 0, ": "+other+"\n", "")
	if data, _ := os.ReadFile(other); !strings.Contains(string(data), `href="state/fan-night-2/report.html"`) {
		t.Errorf("-o's page does not link the loops' pages from where it is")
	}
	root := filepath.Join(c.srv.Dir, "state")
	s, err := fan.Load(fan.Dir(root, "night"))
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range s.Works(root) { // what the page and finish --pr tell
		if len(w.Runs) != 1 || w.Runs[0].Name != "fan-night-"+w.ID || w.Iterations < 1 || w.Attempts < 1 || w.Verdict != "done" || w.Merges != 1 {
			t.Errorf("task %s: %d runs, %d iterations, %d attempts, verdict %q, %d merges", w.ID, len(w.Runs), w.Iterations, w.Attempts, w.Verdict, w.Merges)
		}
	}
	if names, _ := fan.Names(root); len(names) != 1 || names[0] != "night" {
		t.Errorf("fans %q, want night", names)
	}
	c.want([]string{"report", "fan-night-1"}, 0, "[ralph] fan-night-1: report of ", "") // a loop of the fan is still a loop
	c.want([]string{"report", "nosuch"}, 1, "", "no ralph state found for loop 'nosuch'")
	// A loop of the fan's name comes first: report and finish take it for the loop.
	if err := os.MkdirAll(filepath.Join(root, "night"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "night", "state.json"), []byte(`{"worker_name":"night"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	c.want([]string{"report", "night"}, 0, "[ralph] night: report of 0 iterations", "")
	c.want([]string{"finish", "night", "--pr"}, 1, "", "loop night has no folder recorded")
}

func TestFinishFanPROpensOnePullRequestForTheFansBranchWithEveryTasksVerdict(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	repo, landed := landedAndRefused(c, "pr")
	bare := filepath.Join(c.srv.Dir, "remote.git")
	c.git(c.srv.Dir, "init", "-q", "--bare", bare)
	c.git(repo, "remote", "add", "origin", bare)
	env, record := fakeGh(c)
	dir := filepath.Join(c.srv.Dir, "state", "fans", "pr")

	held := &state.Store{Dir: dir} // as the fan's own process holds it while it runs
	if err := held.Lock(); err != nil {
		t.Fatal(err)
	}
	c.wantEnv(env, []string{"finish", "pr", "--pr"}, 1, "", "ralph-watch: error: fan pr is still running: let it end, or stop it first (ralph-watch stop pr)\n")
	held.Unlock()
	c.wantEnv(env, []string{"finish", "pr", "--merge"}, 2, "", "a fan lands by one pull request: finish pr --pr")
	c.wantEnv(env, []string{"finish", "pr", "--pr", "--into", "nosuch"}, 1, "", "branch nosuch (where fan pr lands) does not exist")
	if _, err := os.Stat(record); !os.IsNotExist(err) {
		t.Fatalf("gh ran for a refused finish")
	}

	out := c.wantEnv(env, []string{"finish", "pr", "--pr"}, 0, "Fan pr: 1 of 2 tasks landed, 1 waiting for review\nBranch ralph/fan-pr, onto main: 1 commit\n", "")
	if !strings.HasSuffix(out, "Pushed ralph/fan-pr and opened a pull request into main: https://forge.invalid/o/r/pull/7\n") {
		t.Errorf("finish said:\n%s", out)
	}
	c.want([]string{"status", "pr"}, 0, "Landed: pr (Pushed ralph/fan-pr and opened a pull request into main: https://forge.invalid/o/r/pull/7, ", "")
	args, _ := os.ReadFile(record)
	want := repo + "\npr\ncreate\n--base\nmain\n--head\nralph/fan-pr\n--title\nralph fan pr: 1 of 2 tasks landed, 1 waiting for review\n--body-file\n" + filepath.Join(dir, "pr-body.md") + "\n"
	if string(args) != want {
		t.Errorf("gh ran as\n%s\nwant\n%s", args, want)
	}
	body, _ := os.ReadFile(record + ".body")
	for _, part := range []string{"| 1 | Make file-a | landed | done | `fan-pr-1` | 1 | 1 | 1 | " + landed[:12] + " |",
		"| 2 | Make file-b | needs-review | done | `fan-pr-2` | 1 | 1 | 1 | - |",
		"**Task 2, needs-review** (its work: branch `ralph/fan-pr-2`)", "file-b clashes on the branch", "### Commits (1)", "Task 1: Make file-a"} {
		if !strings.Contains(string(body), part) {
			t.Errorf("the body lacks %q:\n%s", part, body)
		}
	}
	if got := c.git(bare, "log", "--format=%s", "ralph/fan-pr"); got != "Task 1: Make file-a\nstart\n" {
		t.Errorf("the remote's ralph/fan-pr:\n%s", got)
	}
	if got := c.git(bare, "branch", "--list"); strings.TrimSpace(got) != "ralph/fan-pr" {
		t.Errorf("pushed %q, want the fan's branch alone", got)
	}
	if got := c.git(repo, "log", "-1", "--format=%s", "main"); got != "start\n" || c.git(repo, "branch", "--show-current") != "main\n" {
		t.Errorf("--pr moved the person's main: %s", got)
	}
}

// finish FAN alone shows what the fan did and how to land it, exit 0, as
// finish NAME does for a loop, even while the fan runs; it opens nothing.
func TestFinishFanAloneShowsWhatTheFanDidAndHowToLandIt(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	_, _ = landedAndRefused(c, "sh")
	env, record := fakeGh(c)
	held := &state.Store{Dir: filepath.Join(c.srv.Dir, "state", "fans", "sh")}
	if err := held.Lock(); err != nil {
		t.Fatal(err)
	}
	defer held.Unlock()
	out := c.wantEnv(env, []string{"finish", "sh"}, 0, "Fan sh: 1 of 2 tasks landed, 1 waiting for review\nBranch ralph/fan-sh, onto main: 1 commit\n", "")
	if !strings.HasSuffix(out, "\nLand it with: ralph-watch finish sh --pr (one pull request), or merge ralph/fan-sh with git yourself\n") {
		t.Errorf("finish said:\n%s", out)
	}
	if _, err := os.Stat(record); !os.IsNotExist(err) {
		t.Errorf("gh ran for finish alone")
	}
}
