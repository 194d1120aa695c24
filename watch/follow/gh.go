package follow

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os/exec"
	"strconv"
	"strings"
)

// Gh is the one place that runs gh: the person's own gh, logged in as
// they are. ralph-watch reads, writes and shows no token of gh's: it only
// runs the program, in the loop's working tree.
type Gh struct {
	Program string // "" gh on PATH
	Dir     string // where it runs: the loop's working tree
	Host    string // the pull request's host (github.com, or an enterprise one)
	Repo    string // OWNER/NAME
	PR      int
}

// Address is a pull request's address taken apart:
// https://HOST/OWNER/NAME/pull/N.
func Address(addr string) (host, repo string, pr int, err error) {
	u, err := url.Parse(strings.TrimSpace(addr))
	if err != nil {
		return "", "", 0, err
	}
	parts := strings.Split(strings.Trim(u.Path, "/"), "/")
	if len(parts) != 4 || parts[2] != "pull" {
		return "", "", 0, fmt.Errorf("%q is not a pull request's address (https://HOST/OWNER/NAME/pull/N)", addr)
	}
	if pr, err = strconv.Atoi(parts[3]); err != nil || pr <= 0 {
		return "", "", 0, fmt.Errorf("%q is not a pull request's address (https://HOST/OWNER/NAME/pull/N)", addr)
	}
	return u.Host, parts[0] + "/" + parts[1], pr, nil
}

// repoFlag is -R's value: OWNER/NAME, with its host when not github.com.
func (g Gh) repoFlag() string {
	if g.Host == "" || g.Host == "github.com" {
		return g.Repo
	}
	return g.Host + "/" + g.Repo
}

// run runs gh with args; ok lists exit codes whose output is still an
// answer (gh pr checks exits 8 while checks run, 1 when one failed).
func (g Gh) run(ctx context.Context, args []string, ok ...int) ([]byte, error) {
	program := g.Program
	if program == "" {
		program = "gh"
	}
	cmd := exec.CommandContext(ctx, program, args...)
	cmd.Dir = g.Dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if ee, isExit := err.(*exec.ExitError); isExit {
		for _, code := range ok {
			if ee.ExitCode() == code {
				return out, nil
			}
		}
	}
	if err != nil {
		if _, missing := err.(*exec.Error); missing {
			return nil, fmt.Errorf("gh is not installed or not on PATH: install GitHub's gh and log in with 'gh auth login'")
		}
		return nil, fmt.Errorf("gh %s: %s", strings.Join(args[:2], " "), strings.TrimSpace(cmp(stderr.String(), err.Error())))
	}
	return out, nil
}

func cmp(a, b string) string {
	if strings.TrimSpace(a) != "" {
		return a
	}
	return b
}

// Look looks at the pull request once: its state, reviews, comments and
// mergeability (gh pr view), its checks (gh pr checks) and its review
// comments with their file and line (gh api …/pulls/N/comments).
func (g Gh) Look(ctx context.Context) (Look, error) {
	var look Look
	n := strconv.Itoa(g.PR)
	out, err := g.run(ctx, []string{"pr", "view", n, "-R", g.repoFlag(), "--json", "state,reviewDecision,reviews,comments,mergeable,baseRefName"})
	if err != nil {
		return look, err
	}
	var view struct {
		State          string    `json:"state"`
		ReviewDecision string    `json:"reviewDecision"`
		Mergeable      string    `json:"mergeable"`
		Base           string    `json:"baseRefName"`
		Reviews        []Review  `json:"reviews"`
		Comments       []Comment `json:"comments"`
	}
	if err := json.Unmarshal(out, &view); err != nil {
		return look, fmt.Errorf("read gh pr view's answer: %v", err)
	}
	look = Look{State: view.State, ReviewDecision: view.ReviewDecision, Mergeable: view.Mergeable, Base: view.Base, Reviews: view.Reviews, Comments: view.Comments}
	if look.State != "OPEN" {
		return look, nil
	}
	out, err = g.run(ctx, []string{"pr", "checks", n, "-R", g.repoFlag(), "--json", "name,state,bucket,link,workflow"}, 1, 8)
	switch {
	case err != nil && strings.Contains(err.Error(), "no checks reported"):
	case err != nil:
		return look, err
	case len(bytes.TrimSpace(out)) > 0:
		if err := json.Unmarshal(out, &look.Checks); err != nil {
			return look, fmt.Errorf("read gh pr checks's answer: %v", err)
		}
	}
	api := []string{"api", fmt.Sprintf("repos/%s/pulls/%d/comments", g.Repo, g.PR), "--paginate"}
	if g.Host != "" && g.Host != "github.com" {
		api = append(api, "--hostname", g.Host)
	}
	if out, err = g.run(ctx, api); err != nil {
		return look, err
	}
	if look.ReviewComments, err = pages(out); err != nil {
		return look, fmt.Errorf("read the review comments: %v", err)
	}
	return look, nil
}

// pages reads the JSON arrays --paginate prints one after another.
func pages(out []byte) ([]ReviewComment, error) {
	var all []ReviewComment
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		var page []ReviewComment
		if err := dec.Decode(&page); err != nil {
			return nil, err
		}
		all = append(all, page...)
	}
	return all, nil
}

// FailedLog is the failed jobs' log of a workflow run (gh run view RUN
// --log-failed), its lines for the check's job.
func (g Gh) FailedLog(ctx context.Context, c Check) (Log, error) {
	run, _ := c.RunJob()
	if run == "" {
		return Log{}, fmt.Errorf("check %s has no workflow run to read a log of", c.Name)
	}
	out, err := g.run(ctx, []string{"run", "view", run, "-R", g.repoFlag(), "--log-failed"})
	if err != nil {
		return Log{}, err
	}
	return ParseLog(string(out), c.Name), nil
}
