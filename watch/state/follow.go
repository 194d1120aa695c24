package state

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"syscall"
)

// Follow is what ralph-watch follow saw of a loop's pull request and did
// about it (follow.json): written by follow alone, so that a follow killed
// and started again acts on no feedback twice and pushes nothing twice.
type Follow struct {
	PR     int    `json:"pr"`
	URL    string `json:"url"`
	Repo   string `json:"repo,omitempty"` // OWNER/NAME, from the address
	Branch string `json:"branch"`
	Base   string `json:"base,omitempty"`
	Remote string `json:"remote,omitempty"`
	// Handled are the ids of the feedback given to a round: failed check
	// runs (run:ID/job:ID), reviews, comments, review comments, conflicts.
	Handled []string      `json:"handled,omitempty"`
	Rounds  []FollowRound `json:"rounds,omitempty"`
	// How follow last ran (--follow-rounds, --follow-interval,
	// --follow-anyone): restore starts it again so.
	MaxRounds int    `json:"max_rounds,omitempty"`
	Interval  string `json:"interval,omitempty"`
	Anyone    bool   `json:"anyone,omitempty"`
	// Pushed is the last commit follow pushed to the pull request's branch.
	Pushed string `json:"pushed,omitempty"`
	// The last look: the checks and reviews in words, and the status
	// line's mark (✗ ci, ⟳, ✓).
	Checks  string `json:"checks,omitempty"`
	Reviews string `json:"reviews,omitempty"`
	Shown   string `json:"shown,omitempty"`
	Looked  string `json:"looked,omitempty"`
	// Ended is how following ended ("" while it goes on): pr_ready,
	// follow_rounds, merged, closed, push_refused.
	Ended   string `json:"ended,omitempty"`
	Started string `json:"started"`
}

// Round states.
const (
	RoundFixing = "fixing" // the loop runs the round's iteration
	RoundPushed = "pushed" // its commits are on the pull request's branch
)

// FollowRound is one round of fixes: the loop resumed for one iteration
// with a note of the feedback.
type FollowRound struct {
	N         int      `json:"n"`
	Iteration int      `json:"iteration"` // the loop's iteration before the round: the round's is the next
	Handled   []string `json:"handled"`
	Reasons   []string `json:"reasons"` // what it fixes, in words: "failed check ci / test", "2 review comments"
	State     string   `json:"state"`
	Pushed    string   `json:"pushed,omitempty"`
	Started   string   `json:"started"`
}

// Fixing is the round the loop is running, nil for none.
func (f *Follow) Fixing() *FollowRound {
	if f == nil || len(f.Rounds) == 0 || f.Rounds[len(f.Rounds)-1].State != RoundFixing {
		return nil
	}
	return &f.Rounds[len(f.Rounds)-1]
}

// Handle records ids as handled.
func (f *Follow) Handle(ids []string) {
	for _, id := range ids {
		if !slices.Contains(f.Handled, id) {
			f.Handled = append(f.Handled, id)
		}
	}
}

// Follow is the loop's follow record; nil, nil when it has none.
func (s *Store) Follow() (*Follow, error) {
	data, err := os.ReadFile(s.Path(FollowFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var f Follow
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("read %s: %w", s.Path(FollowFile), err)
	}
	return &f, nil
}

// SaveFollow writes the loop's follow record atomically.
func (s *Store) SaveFollow(f *Follow) error {
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	return s.WriteFile(FollowFile, append(data, '\n'))
}

// HoldFollow takes the loop's follow lock, that one follow at a time
// follows its pull request; release gives it back (the kernel does when
// the process dies). ErrLocked when another follow holds it.
func (s *Store) HoldFollow() (release func(), err error) {
	f, err := os.OpenFile(s.Path(FollowLock), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open follow lock: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, ErrLocked
		}
		return nil, fmt.Errorf("lock %s: %w", f.Name(), err)
	}
	return func() { f.Close() }, nil
}

// Followed reports whether a follow holds the loop's follow lock.
func (s *Store) Followed() bool {
	release, err := s.HoldFollow()
	if err != nil {
		return errors.Is(err, ErrLocked)
	}
	release()
	return false
}
