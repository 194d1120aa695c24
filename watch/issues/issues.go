// Package issues reads a repository's GitHub issues through the person's
// own gh (GitHub CLI): it only runs gh, with the person's login, and never
// reads, writes or shows gh's token. ralph-watch plan --from-github makes
// a plan of them; finish --pr asks which of a plan's issues are closed.
package issues

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// Issue is a GitHub issue as gh issue list --json and gh issue view --json give it.
type Issue struct {
	Number int     `json:"number"`
	Title  string  `json:"title"`
	Body   string  `json:"body"`
	State  string  `json:"state"` // OPEN or CLOSED
	Labels []Label `json:"labels"`
}

// Label is one of an issue's labels.
type Label struct {
	Name string `json:"name"`
}

// Closed is true for an issue closed on GitHub (completed or not planned).
func (i Issue) Closed() bool { return strings.EqualFold(i.State, "closed") }

// SetupError is gh missing, not logged in, or finding no repository:
// the person's to put right, before anything is written.
type SetupError struct{ Msg string }

func (e *SetupError) Error() string { return e.Msg }

// Gh runs the person's gh in a folder.
type Gh struct {
	Program string   // gh's path
	Dir     string   // where gh runs: it finds the repository by the folder's git remote
	Env     []string // its environment; nil: this process's
	Repo    string   // OWNER/NAME; "" the one gh finds in Dir (Ready sets it)
}

// Find is gh on the PATH given (a PATH variable's value), as the shell
// would find it.
func Find(path string) (*Gh, error) {
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			dir = "."
		}
		p := filepath.Join(dir, "gh")
		if info, err := os.Stat(p); err == nil && !info.IsDir() && info.Mode()&0o111 != 0 {
			return &Gh{Program: p}, nil
		}
	}
	return nil, &SetupError{Msg: "gh (GitHub CLI) is not on PATH: install it (https://cli.github.com), run 'gh auth login', then run this again"}
}

// Ready checks that gh is logged in and finds the repository, which it
// then names in every call (Repo).
func (g *Gh) Ready() error {
	if _, err := g.run("auth", "status"); err != nil { // what it says is not shown: it is about the token
		return &SetupError{Msg: "gh is not logged in to GitHub (gh auth status failed): run 'gh auth login', then run this again"}
	}
	args := []string{"repo", "view"}
	if g.Repo != "" {
		args = append(args, g.Repo)
	}
	out, err := g.run(append(args, "--json", "nameWithOwner", "--jq", ".nameWithOwner")...)
	name := strings.TrimSpace(string(out))
	if err != nil || name == "" {
		if g.Repo != "" {
			return &SetupError{Msg: fmt.Sprintf("gh finds no repository %s (%s): check --repo OWNER/NAME", g.Repo, firstLine(err))}
		}
		return &SetupError{Msg: fmt.Sprintf("gh finds no GitHub repository in %s (%s): run this in a clone of it, or name it with --repo OWNER/NAME", g.Dir, firstLine(err))}
	}
	g.Repo = name
	return nil
}

// Filter picks the issues to list.
type Filter struct {
	Labels    []string // every one of them
	Milestone string
	Assignee  string
	Limit     int // at most so many; 0: gh's own default
}

// ListOpen is the repository's open issues that f picks:
//
//	gh issue list --repo R --state open --json number,title,body,state,labels [--label L]… [--milestone M] [--assignee A] [--limit N]
func (g *Gh) ListOpen(f Filter) ([]Issue, error) {
	args := []string{"issue", "list", "--repo", g.Repo, "--state", "open", "--json", "number,title,body,state,labels"}
	for _, l := range f.Labels {
		args = append(args, "--label", l)
	}
	if f.Milestone != "" {
		args = append(args, "--milestone", f.Milestone)
	}
	if f.Assignee != "" {
		args = append(args, "--assignee", f.Assignee)
	}
	if f.Limit > 0 {
		args = append(args, "--limit", strconv.Itoa(f.Limit))
	}
	out, err := g.run(args...)
	if err != nil {
		return nil, fmt.Errorf("gh issue list: %s", firstLine(err))
	}
	var list []Issue
	if err := json.Unmarshal(out, &list); err != nil {
		return nil, fmt.Errorf("gh issue list: its answer is not the JSON asked for: %v", err)
	}
	return list, nil
}

// View is one issue, open or closed:
//
//	gh issue view N --repo R --json number,title,state
func (g *Gh) View(n int) (Issue, error) {
	args := []string{"issue", "view", strconv.Itoa(n), "--json", "number,title,state"}
	if g.Repo != "" {
		args = append(args[:3], append([]string{"--repo", g.Repo}, args[3:]...)...)
	}
	out, err := g.run(args...)
	if err != nil {
		return Issue{}, fmt.Errorf("gh issue view %d: %s", n, firstLine(err))
	}
	var is Issue
	if err := json.Unmarshal(out, &is); err != nil || is.Number != n {
		return Issue{}, fmt.Errorf("gh issue view %d: its answer is not that issue's JSON", n)
	}
	return is, nil
}

// Closed is which of the issues numbered are closed on GitHub; an issue
// gh cannot tell of is not among them. It needs no Ready: gh finds the
// repository in Dir, as gh pr create does.
func (g *Gh) Closed(numbers []int) map[int]bool {
	closed := map[int]bool{}
	for _, n := range numbers {
		if is, err := g.View(n); err == nil && is.Closed() {
			closed[n] = true
		}
	}
	return closed
}

// run runs gh with args and returns its standard output; an error holds
// what it said on standard error.
func (g *Gh) run(args ...string) ([]byte, error) {
	cmd := exec.Command(g.Program, args...)
	cmd.Dir, cmd.Env = g.Dir, g.Env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		if msg := strings.TrimSpace(stderr.String()); msg != "" {
			return out, errors.New(msg)
		}
		return out, err
	}
	return out, nil
}

func firstLine(err error) string {
	if err == nil {
		return "no answer"
	}
	l, _, _ := strings.Cut(strings.TrimSpace(err.Error()), "\n")
	return l
}
