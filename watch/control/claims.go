package control

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/ralph-tmux/ralph.tmux/watch/clock"
	"github.com/ralph-tmux/ralph.tmux/watch/contract"
	"github.com/ralph-tmux/ralph.tmux/watch/fan"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
)

// Claim folders beside the loops' (dot folders: no loop can be named so):
// one file per loop name and per plan, whose lock a run holds from its
// first check until its watcher holds the loop.
const (
	namesDir = ".names"
	plansDir = ".plans"
)

// claimFileIn takes the lock of claim file name in folder dir under root
// (waiting for it: a claim is decided in well under a second) and gives
// decide the loop the file names ("" for none), which may refuse; then it
// names loop in the file. The lock is held until release, so that two
// starts at the same moment cannot both win.
func claimFileIn(root, dir, file, what, loop string, decide func(holder string) error) (release func(), err error) {
	dir = filepath.Join(root, dir)
	if err := os.MkdirAll(dir, 0o700); err != nil { // before anything is spawned: a usage error, as state.Open says
		return nil, Errorf(contract.ExitUsage, "%v", state.Unwritable(root, err))
	}
	f, err := os.OpenFile(filepath.Join(dir, file), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, Errorf(contract.ExitUsage, "%v", state.Unwritable(root, err))
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, Errorf(contract.ExitFailed, "claim %s: %v", what, err)
	}
	release = func() { f.Close() }
	data, _ := io.ReadAll(f)
	if holder := strings.TrimSpace(string(data)); decide != nil {
		if err := decide(holder); err != nil {
			release()
			return nil, err
		}
	}
	err = f.Truncate(0)
	if err == nil {
		_, err = f.WriteAt([]byte(loop+"\n"), 0)
	}
	if err != nil {
		release()
		return nil, Errorf(contract.ExitFailed, "claim %s: %v", what, err)
	}
	return release, nil
}

// HoldName holds loop name's claim until release: a run holds it from
// before ClaimName until its watcher holds the loop, so that of two runs of
// one name at the same moment the second finds the first running and is
// refused before it says anything else.
func HoldName(root, name string) (release func(), err error) {
	return claimFileIn(root, namesDir, name+".claim", "loop name "+name, name, nil) // never a loop folder's file name: state.json, lock
}

// ClaimPlan makes plan (an absolute path; shown as the person gave it)
// loop name's: under the plan's lock, it refuses a plan that another live
// loop works (exit 2, naming it and the fan), or as ClaimReplace stops that
// loop first (a line on out). A loop held to one task (--task) claims that
// task of the plan alone. The lock is held until release.
func ClaimPlan(root, plan, shown, task, name string, how Claim, out io.Writer, clk clock.Clock) (release func(), err error) {
	key := plan
	if real, err := filepath.EvalSymlinks(plan); err == nil {
		key = real
	}
	if task != "" {
		key += "#" + task
	}
	if f := fanOn(root, strings.TrimSuffix(key, "#"+task)); f != "" {
		return nil, Errorf(contract.ExitUsage, "plan %s is worked by fan %q: a loop beside it would take its tasks. "+
			"Let the fan work it, or stop it first with 'ralph-watch stop %s'", shown, f, f)
	}
	sum := sha256.Sum256([]byte(key))
	return claimFileIn(root, plansDir, hex.EncodeToString(sum[:12]), "plan "+shown, name, func(holder string) error {
		if holder == "" || holder == name {
			return nil
		}
		l := working(root, holder)
		switch {
		case l == nil:
			return nil
		case how != ClaimReplace:
			return Errorf(contract.ExitUsage, "plan %s is worked by loop %q: two loops on one plan take the same task. "+
				"Run several on it with 'ralph-watch fan --tasks %s', or stop %s and take the plan over with --replace", shown, holder, shown, holder)
		}
		if err := takeOver(root, l, clk); err != nil {
			return err
		}
		fmt.Fprintf(out, "stopped loop %s, which worked plan %s\n", holder, shown)
		return nil
	})
}

// working is loop name if it still goes on with a plan: its watcher runs
// (one just started holds the loop before it writes its state), or its
// state says it goes on with none (resume brings it back).
func working(root, name string) *Loop {
	l, err := Find(root, name)
	if err != nil {
		if store := (&state.Store{Dir: filepath.Join(root, name)}); ValidName(name) && store.Locked() {
			return &Loop{Name: name, Store: store, State: &state.State{}}
		}
		return nil
	}
	if l.State.Tasks == nil && l.State.CurrentIteration > 0 { // a loop of that name since, with no plan
		return nil
	}
	if l.Watched || contract.StatusOf(l.State).Live() {
		return l
	}
	return nil
}

// fanOn is the running fan that works plan (its path, symlinks resolved),
// "" for none: the fan's loops work their own copies, in their worktrees.
func fanOn(root, plan string) string {
	names, _ := fan.Names(root)
	for _, n := range names {
		dir := fan.Dir(root, n)
		s, err := fan.Load(dir)
		if err != nil || s.Ended || !fan.Running(dir) {
			continue
		}
		p := s.Plan
		if !filepath.IsAbs(p) {
			p = filepath.Join(s.Repo, p)
		}
		if real, err := filepath.EvalSymlinks(p); err == nil {
			p = real
		}
		if p == plan {
			return n
		}
	}
	return ""
}
