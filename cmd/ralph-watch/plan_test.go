package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// scriptedGh is testdata/gh/issues as gh, alone in a folder of the test's
// own (its answers are written beside it); it returns that folder.
func scriptedGh(t *testing.T, answers map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	script, err := os.ReadFile("../../testdata/gh/issues")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "gh"), script, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, text := range answers {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// runWithPath runs ralph-watch in this process with PATH as given, the
// rest of the environment as it is.
func runWithPath(path string, args ...string) (int, string, string) {
	var stdout, stderr bytes.Buffer
	getenv := func(k string) string {
		if k == "PATH" {
			return path
		}
		return os.Getenv(k)
	}
	code := run(context.Background(), args, env{Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: &stderr, Getenv: getenv, Executable: os.Executable})
	return code, stdout.String(), stderr.String()
}

// ghCalls is what the scripted gh in dir was asked, one call a line.
func ghCalls(dir string) []string {
	data, _ := os.ReadFile(filepath.Join(dir, "calls"))
	var calls []string
	for _, c := range strings.Split(string(data), "-- end\n") {
		if c != "" {
			calls = append(calls, strings.Join(strings.Split(strings.TrimSuffix(c, "\n"), "\n"), " "))
		}
	}
	return calls
}

// The open issues become a plan: one task an issue, in number order, id
// gh-N, the body's checklist and Acceptance lines its criteria; a title
// that looks like a command is written as text and runs nothing.
func TestPlanFromGitHubWritesATaskAnIssueInNumberOrder(t *testing.T) {
	work := t.TempDir()
	pwned := filepath.Join(work, "pwned")
	list := []map[string]any{
		{"number": 14, "title": "Add the --json flag", "body": "", "state": "OPEN", "labels": []any{map[string]string{"name": "ralph"}}},
		{"number": 9, "title": "Fix the login", "state": "OPEN", "labels": []any{},
			"body": "It fails.\r\n\r\n- [ ] a wrong password says so\r\n\r\n## Acceptance\r\n\r\nThe form keeps the email.\r\n"},
		{"number": 12, "title": "Run $(touch " + pwned + ") `touch " + pwned + "` #{pane_id}", "body": "Nothing to check.", "state": "OPEN", "labels": []any{}},
	}
	listJSON, _ := json.Marshal(list)
	gh := scriptedGh(t, map[string]string{"list.json": string(listJSON)})
	path := gh + string(os.PathListSeparator) + os.Getenv("PATH")
	file := filepath.Join(work, "PLAN.md")
	code, stdout, stderr := runWithPath(path, "plan", "--from-github", "--label", "ralph", file)
	if code != 0 || stderr != "" || stdout != "Wrote "+file+" from the issues of acme/web: added #9, #12, #14.\nCheck it with: ralph-watch tasks "+file+"\n" {
		t.Fatalf("plan: exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
	data, _ := os.ReadFile(file)
	want := "# Plan\n\nThe open issues of acme/web, one task each (ralph-watch plan --from-github; run it again to add new issues and tick closed ones).\n\n" +
		"- [ ] #9 Fix the login\n  Acceptance criteria:\n  - a wrong password says so\n  - The form keeps the email.\n" +
		"- [ ] #12 " + list[2]["title"].(string) + "\n" +
		"- [ ] #14 Add the --json flag\n"
	if string(data) != want {
		t.Errorf("plan\n%s\nwant\n%s", data, want)
	}
	if _, err := os.Stat(pwned); !os.IsNotExist(err) {
		t.Errorf("a title ran: %v", err)
	}
	calls := ghCalls(gh)
	wantCalls := []string{"auth status", "repo view --json nameWithOwner --jq .nameWithOwner",
		"issue list --repo acme/web --state open --json number,title,body,state,labels --label ralph --limit 100"}
	if strings.Join(calls, "\n") != strings.Join(wantCalls, "\n") {
		t.Errorf("gh ran as\n%s\nwant\n%s", strings.Join(calls, "\n"), strings.Join(wantCalls, "\n"))
	}

	code, stdout, _ = runInProcess("tasks", "--json", file)
	var got struct {
		Items []struct {
			ID, Title, State string
			Criteria         []string
		}
	}
	if err := json.Unmarshal([]byte(stdout), &got); code != 0 || err != nil || len(got.Items) != 3 {
		t.Fatalf("tasks --json: exit %d %v\n%s", code, err, stdout)
	}
	for i, id := range []string{"gh-9", "gh-12", "gh-14"} {
		if got.Items[i].ID != id || got.Items[i].State != "open" {
			t.Errorf("task %d: %+v, want id %s", i, got.Items[i], id)
		}
	}
	if c := got.Items[0].Criteria; len(c) != 2 || c[0] != "a wrong password says so" || c[1] != "The form keeps the email." || got.Items[1].Criteria != nil {
		t.Errorf("criteria %q %q", c, got.Items[1].Criteria)
	}
	if got.Items[1].Title != list[2]["title"] {
		t.Errorf("title %q", got.Items[1].Title)
	}
}

// An update asks gh of every issue the plan names that the open list
// leaves out, ticks those closed, appends the new ones after the last
// task, and keeps the person's lines byte for byte.
func TestPlanFromGitHubUpdateTicksClosedAppendsNewKeepsThePersonsLines(t *testing.T) {
	work := t.TempDir()
	file := filepath.Join(work, "PLAN.md")
	mine := "# Sprint\n\nMy notes stay.   \n\n- [ ] Tidy the README  <!-- my own task -->\n- [ ] #9 Fix the login, my words\n  Acceptance criteria:\n  - mine\n- [ ] #12 Still open\n- [ ] #30 Moved away\n\n## Later\n\n- [ ] #40 not a task here\n"
	if err := os.WriteFile(file, []byte(mine), 0o600); err != nil {
		t.Fatal(err)
	}
	gh := scriptedGh(t, map[string]string{
		"list.json":     `[{"number": 20, "title": "New issue", "body": "", "state": "OPEN", "labels": []}, {"number": 12, "title": "Still open", "body": "", "state": "OPEN", "labels": []}]`,
		"issue-9.json":  `{"number": 9, "title": "Fix the login", "state": "CLOSED"}`,
		"issue-40.json": `{"number": 40, "title": "Forty", "state": "CLOSED"}`,
	})
	path := gh + string(os.PathListSeparator) + os.Getenv("PATH")
	code, stdout, stderr := runWithPath(path, "plan", file, "--from-github", "--repo", "acme/api", "--milestone", "v2", "--assignee", "@me", "--limit", "5")
	if code != 0 || stdout != "Updated "+file+" from the issues of acme/api: added #20; ticked #9 (closed).\nCheck it with: ralph-watch tasks "+file+"\n" ||
		!strings.Contains(stderr, "ralph-watch: warning: gh issue view 30: GraphQL: Could not resolve to an issue") {
		t.Fatalf("plan: exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
	data, _ := os.ReadFile(file)
	want := strings.Replace(mine, "- [ ] #9", "- [x] #9", 1)
	want = strings.Replace(want, "- [ ] #30 Moved away\n", "- [ ] #30 Moved away\n- [ ] #20 New issue\n", 1)
	if string(data) != want {
		t.Errorf("plan\n%q\nwant\n%q", data, want)
	}
	if info, _ := os.Stat(file); info.Mode().Perm() != 0o600 {
		t.Errorf("the plan's mode became %v", info.Mode().Perm())
	}
	calls := ghCalls(gh)
	wantCalls := []string{"auth status", "repo view acme/api --json nameWithOwner --jq .nameWithOwner",
		"issue list --repo acme/api --state open --json number,title,body,state,labels --milestone v2 --assignee @me --limit 5",
		"issue view 9 --repo acme/api --json number,title,state", "issue view 30 --repo acme/api --json number,title,state"}
	if strings.Join(calls, "\n") != strings.Join(wantCalls, "\n") {
		t.Errorf("gh ran as\n%s\nwant\n%s", strings.Join(calls, "\n"), strings.Join(wantCalls, "\n"))
	}
	// Again: nothing new, nothing closed since; the file is not written.
	code, stdout, _ = runWithPath(path, "plan", "--from-github", "--repo", "acme/api", file)
	if again, _ := os.ReadFile(file); code != 0 || string(again) != want || stdout != file+" is up to date with acme/api: no new open issue, and none of its 4 issues closed since.\n" {
		t.Errorf("again: exit %d, stdout %q, plan changed: %v", code, stdout, string(again) != want)
	}
}

// Without gh, without a login or without a repository, plan says what to
// do and exits 2, and writes nothing.
func TestPlanFromGitHubRefusesWithoutGhLoginOrRepository(t *testing.T) {
	empty := t.TempDir()
	for _, tc := range []struct {
		name    string
		answers map[string]string // nil: no gh at all
		args    []string
		want    string
	}{
		{"no gh", nil, nil, "ralph-watch: error: gh (GitHub CLI) is not on PATH: install it (https://cli.github.com), run 'gh auth login', then run this again\n"},
		{"not logged in", map[string]string{"loggedout": ""}, nil, "ralph-watch: error: gh is not logged in to GitHub (gh auth status failed): run 'gh auth login', then run this again\n"},
		{"no repository", map[string]string{"norepo": ""}, nil, "ralph-watch: error: gh finds no GitHub repository in "},
		{"no such repository", map[string]string{"norepo": ""}, []string{"--repo", "acme/nope"}, "ralph-watch: error: gh finds no repository acme/nope (failed to run git"},
		{"no source", map[string]string{}, []string{"--no-source"}, "ralph-watch: error: plan needs where its tasks come from: --from-github\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := empty
			if tc.answers != nil {
				path = scriptedGh(t, tc.answers) + string(os.PathListSeparator) + os.Getenv("PATH")
			}
			for _, existing := range []string{"", "- [ ] #3 three\n"} {
				file := filepath.Join(t.TempDir(), "PLAN.md")
				if existing != "" {
					_ = os.WriteFile(file, []byte(existing), 0o644)
				}
				args := append([]string{"plan", "--from-github"}, tc.args...)
				if len(tc.args) > 0 && tc.args[0] == "--no-source" {
					args = []string{"plan"}
				}
				code, stdout, stderr := runWithPath(path, append(args, file)...)
				if code != 2 || stdout != "" || !strings.HasPrefix(stderr, tc.want) {
					t.Errorf("exit %d, stdout %q, stderr %q; want exit 2 and %q", code, stdout, stderr, tc.want)
				}
				if data, err := os.ReadFile(file); existing == "" && !os.IsNotExist(err) || existing != "" && string(data) != existing {
					t.Errorf("the plan was written: %q %v", data, err)
				}
			}
		})
	}
	// A JSON plan is not one to write issues into.
	file := filepath.Join(t.TempDir(), "prd.json")
	_ = os.WriteFile(file, []byte(`{"userStories": [{"id": "US-1", "title": "x"}]}`), 0o644)
	gh := scriptedGh(t, map[string]string{"list.json": "[]"})
	if code, _, stderr := runWithPath(gh, "plan", "--from-github", file); code != 2 || !strings.Contains(stderr, "is a JSON plan") {
		t.Errorf("a JSON plan: exit %d, %q", code, stderr)
	}
	if calls := ghCalls(gh); len(calls) != 0 {
		t.Errorf("gh ran for a JSON plan: %q", calls)
	}
	// No open issue: no plan written, exit 1.
	file = filepath.Join(t.TempDir(), "PLAN.md")
	if code, _, stderr := runWithPath(gh+string(os.PathListSeparator)+os.Getenv("PATH"), "plan", "--from-github", "--label", "bug", file); code != 1 ||
		stderr != "ralph-watch: error: acme/web has no open issue that --label bug picks: no plan written\n" {
		t.Errorf("no issues: exit %d, %q", code, stderr)
	}
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Errorf("a plan was written: %v", err)
	}
}
