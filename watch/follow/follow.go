package follow

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/clock"
	"github.com/ralph-tmux/ralph.tmux/watch/contract"
	"github.com/ralph-tmux/ralph.tmux/watch/gitwork"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
)

// LoopSide is what follow asks of the loop it follows.
type LoopSide interface {
	// Round resumes the loop for one iteration, note (when not "") left
	// for its prompt first.
	Round(note string) error
	// Where is the loop's iteration, and whether a watcher runs it (or
	// it is paused) so its round is not over.
	Where() (iteration int, busy bool, err error)
	// Show puts the pull request's mark on the loop's status line.
	Show(mark string)
	// Tell tells the person how following ended, as a loop's end is told.
	Tell(why string)
	// End records how following ended in the loop's state.
	End(reason contract.Reason, status contract.Status, why, mark string) error
}

// Follower follows one loop's pull request until it is ready, merged,
// closed, or the rounds run out.
type Follower struct {
	Store      *state.Store // the loop's folder: follow.json and the [PR] lines
	Gh         Gh
	Loop       LoopSide
	Tree       string // the loop's working tree, where its branch is checked out
	Policy     Policy
	Interval   time.Duration // --follow-interval
	CheckChars int           // how much of a failed check's log goes into the note
	Clock      clock.Clock
	Out        io.Writer
}

// Result is how following ended.
type Result struct {
	Reason contract.Reason // pr_ready, follow_rounds; "" merged, closed or refused
	Code   int
	Why    string
}

// ErrRefused is a push the remote refused: the branch moved there.
var ErrRefused = errors.New("push refused")

// Run follows until the end; ctx's end (an interrupt) leaves follow.json
// as it is, for a follow started again to go on from.
func (f *Follower) Run(ctx context.Context) (Result, error) {
	rec, err := f.Store.Follow()
	if err != nil {
		return Result{}, err
	}
	if rec == nil {
		return Result{}, fmt.Errorf("the loop has no pull request to follow")
	}
	ended := rec.Ended // followed again: it goes on, unless gh cannot be asked at all
	rec.Ended = ""
	rec.MaxRounds, rec.Interval, rec.Anyone = f.Policy.Rounds, f.Interval.String(), f.Policy.Anyone
	f.save(rec)
	looked := 0
	for {
		if ctx.Err() != nil {
			return Result{Code: contract.ExitInterrupted, Why: "follow interrupted: 'ralph-watch follow' again goes on"}, nil
		}
		if r := rec.Fixing(); r != nil {
			over, err := f.awaitRound(ctx, r)
			if err != nil || !over {
				return Result{Code: contract.ExitInterrupted, Why: "follow interrupted: 'ralph-watch follow' again goes on"}, err
			}
			if res, done := f.pushRound(rec, r); done {
				return res, nil
			}
			f.sleep(ctx)
			continue
		}
		look, err := f.Gh.Look(ctx)
		if err != nil {
			if looked == 0 {
				rec.Ended = ended
				f.save(rec)
				return Result{}, err
			}
			f.say(fmt.Sprintf("look at pull request #%d: %v (looking again)", rec.PR, err))
			f.sleep(ctx)
			continue
		}
		looked++
		if look.Mergeable == "CONFLICTING" {
			look.Conflicts = conflicts(f.Tree, rec.Remote, look.Base)
		}
		d := Decide(look, rec.Handled, len(rec.Rounds), f.Policy)
		f.noteLook(rec, look, d)
		switch d.Action {
		case EndReady:
			return f.end(rec, contract.ReasonPRReady, contract.StatusDone, contract.ExitDone, fmt.Sprintf("pull request #%d is ready: %s", rec.PR, d.Why))
		case EndRounds:
			return f.end(rec, contract.ReasonFollowRounds, contract.StatusLimit, contract.ExitLimit, fmt.Sprintf("pull request #%d: %s", rec.PR, d.Why))
		case EndMerged, EndClosed:
			word := map[Action]string{EndMerged: "merged", EndClosed: "closed"}[d.Action]
			rec.Ended = word
			f.save(rec)
			why := fmt.Sprintf("pull request #%d was %s by a person: follow ends", rec.PR, word)
			f.log(why)
			f.Loop.Tell(why)
			return Result{Code: contract.ExitDone, Why: why}, nil
		case Fix:
			if err := f.startRound(ctx, rec, look, d); err != nil {
				return Result{}, err
			}
			continue
		}
		f.sleep(ctx)
	}
}

// startRound records the round, its feedback handled, before the loop
// is resumed with its note: a follow killed after this never gives the
// same feedback twice.
func (f *Follower) startRound(ctx context.Context, rec *state.Follow, look Look, d Decision) error {
	logs := map[string]Log{}
	for _, c := range d.Failed {
		l, err := f.Gh.FailedLog(ctx, c)
		if err != nil {
			f.say(fmt.Sprintf("the log of %s: %v", checkName(c), err))
		}
		logs[c.ID()] = l
	}
	note := Note(d, NoteFacts{PR: rec.PR, URL: rec.URL, Base: cmpOr(look.Base, rec.Base), Logs: logs, CheckChars: f.CheckChars})
	at, _, err := f.Loop.Where()
	if err != nil {
		return err
	}
	r := state.FollowRound{N: len(rec.Rounds) + 1, Iteration: at, Handled: d.Handled, Reasons: d.Reasons(), State: state.RoundFixing, Started: state.Stamp(f.Clock.Now())}
	rec.Handle(d.Handled)
	rec.Rounds = append(rec.Rounds, r)
	rec.Shown = "⟳"
	f.save(rec)
	f.log(fmt.Sprintf("round %d/%d: %s", r.N, f.Policy.Rounds, strings.Join(r.Reasons, ", ")))
	return f.Loop.Round(note)
}

// awaitRound waits until the round's iteration has run and no watcher
// holds the loop; a round whose watcher never started (follow killed
// between) is resumed again, its note already left, once more at most.
func (f *Follower) awaitRound(ctx context.Context, r *state.FollowRound) (bool, error) {
	resumed := 0
	for ctx.Err() == nil {
		at, busy, err := f.Loop.Where()
		if err != nil {
			return false, err
		}
		switch {
		case !busy && at > r.Iteration:
			return true, nil
		case !busy && resumed >= 2: // resumed, it ended before the round's iteration
			return false, fmt.Errorf("the loop ended without running round %d's iteration: see its status and log", r.N)
		case !busy:
			if err := f.Loop.Round(""); err != nil {
				return false, err
			}
			resumed++
		}
		clock.Sleep(ctx, f.Clock, min(f.Interval, 250*time.Millisecond))
	}
	return false, nil
}

// pushRound pushes the round's commits to the pull request's branch,
// never forced, once: done when a refusal ends following.
func (f *Follower) pushRound(rec *state.Follow, r *state.FollowRound) (Result, bool) {
	head, err := gitwork.Run(f.Tree, "rev-parse", "HEAD")
	head = strings.TrimSpace(head)
	switch {
	case err != nil:
		f.say(fmt.Sprintf("round %d: %v", r.N, err))
	case head == rec.Pushed:
		f.log(fmt.Sprintf("round %d made no new commit: nothing pushed", r.N))
	default:
		if err := push(f.Tree, rec.Remote, rec.Branch); err != nil {
			rec.Ended = "push_refused"
			f.save(rec)
			why := fmt.Sprintf("push %s to %s: %v; follow stops (look at the branch, then 'ralph-watch follow' again)", rec.Branch, rec.Remote, err)
			f.log(why)
			f.Loop.Tell(why)
			return Result{Code: contract.ExitFailed, Why: why}, true
		}
		rec.Pushed, r.Pushed = head, head
		f.log(fmt.Sprintf("round %d pushed %s to %s", r.N, short(head), rec.Branch))
	}
	r.State = state.RoundPushed
	f.save(rec)
	return Result{}, false
}

func (f *Follower) end(rec *state.Follow, reason contract.Reason, status contract.Status, code int, why string) (Result, error) {
	rec.Ended = string(reason)
	f.save(rec)
	f.log(why)
	if err := f.Loop.End(reason, status, why, rec.Shown); err != nil {
		f.say(fmt.Sprintf("record the loop's end: %v", err))
	}
	f.Loop.Tell(why)
	return Result{Reason: reason, Code: code, Why: why}, nil
}

// noteLook keeps the look's words in follow.json, and logs a change.
func (f *Follower) noteLook(rec *state.Follow, look Look, d Decision) {
	checks, reviews := Summary(look)
	mark := Mark(look)
	changed := checks != rec.Checks || reviews != rec.Reviews || mark != rec.Shown
	rec.Checks, rec.Reviews, rec.Shown, rec.Looked = checks, reviews, mark, state.Stamp(f.Clock.Now())
	if d.Ignored > 0 {
		d.Why += fmt.Sprintf(" (%d from outside the repository's people ignored; --follow-anyone takes them)", d.Ignored)
	}
	f.save(rec)
	f.Loop.Show(mark)
	if changed {
		f.log(fmt.Sprintf("#%d %s: checks %s; reviews %s; %s", rec.PR, mark, checks, reviews, d.Why))
	}
}

func (f *Follower) save(rec *state.Follow) {
	if err := f.Store.SaveFollow(rec); err != nil {
		f.say(fmt.Sprintf("write %s: %v", state.FollowFile, err))
	}
}

// log is a [PR] line in the loop's log, and on Out.
func (f *Follower) log(msg string) {
	_ = f.Store.Log(f.Clock.Now(), "PR", msg)
	f.say(msg)
}

func (f *Follower) say(msg string) { fmt.Fprintf(f.Out, "[PR] %s\n", msg) }

func (f *Follower) sleep(ctx context.Context) { clock.Sleep(ctx, f.Clock, f.Interval) }

func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}

// push pushes branch to remote, never forced; ErrRefused when the remote
// has commits the branch lacks (a person pushed, or forced, there).
func push(tree, remote, branch string) error {
	_, err := gitwork.Run(tree, "push", "-q", remote, branch+":"+branch)
	if err != nil && (strings.Contains(err.Error(), "rejected") || strings.Contains(err.Error(), "non-fast-forward")) {
		return fmt.Errorf("%w: the branch moved on %s (someone pushed to it)", ErrRefused, remote)
	}
	return err
}

// conflicts are the files the branch checked out in tree conflicts in
// with remote's base, by a merge in git's memory (nothing is changed).
func conflicts(tree, remote, base string) []string {
	if base == "" {
		return nil
	}
	if _, err := gitwork.Run(tree, "fetch", "-q", remote, base); err != nil {
		return nil
	}
	out, _ := gitwork.Run(tree, "merge-tree", "--write-tree", "--name-only", "--no-messages", "HEAD", "FETCH_HEAD")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) < 2 {
		return nil
	}
	return lines[1:]
}
