package judge

import (
	"fmt"
	"os"
	"strings"
)

// Settings are goal mode's flags: the goal (--goal, or --goal-file re-read
// at each judging), the judge, how often it is asked besides the moments
// the loop would end done, its patience, and what is protected.
type Settings struct {
	Goal      string
	GoalFile  string
	Judge     Judge // Dir and Env the loop's
	Every     int   // --judge-every: after every N-th iteration too (0: only at a done moment)
	Patience  int   // --judge-patience
	Protect   []string
	NoProtect bool
}

// On reports whether the loop has a goal to be judged.
func (s Settings) On() bool { return s.Goal != "" || s.GoalFile != "" }

// ReadGoal is the goal as it stands now: the file's text when there is one.
func (s Settings) ReadGoal() (string, error) {
	if s.GoalFile == "" {
		return s.Goal, nil
	}
	data, err := os.ReadFile(s.GoalFile)
	if err != nil {
		return "", fmt.Errorf("read goal file: %w", err)
	}
	if strings.TrimSpace(string(data)) == "" {
		return "", fmt.Errorf("read goal file: %s is empty", s.GoalFile)
	}
	return string(data), nil
}

// Session is goal mode in one run of the loop: the protected paths'
// snapshot, the verdicts so far, and what the next iteration is to be told.
type Session struct {
	Settings
	Base     string // the commit the loop began at
	Snapshot Snapshot
	History  []Judged
	note     string   // for the next prompt, once
	restored []string // put back since the last judging, for the judge
}

// Start is goal mode at the loop's start in dir: its protected paths
// (see Protected) read as they are now.
func Start(s Settings, dir, base string, checkCommands []string) (*Session, error) {
	snap, err := Take(dir, Protected(dir, checkCommands, s.Protect, s.NoProtect))
	return &Session{Settings: s, Base: base, Snapshot: snap}, err
}

// Restore puts back what the agent changed of the protected paths and
// returns it; the next iteration and the next judging are told.
func (s *Session) Restore() ([]string, error) {
	put, err := s.Snapshot.Restore()
	if len(put) > 0 {
		s.restored = append(s.restored, put...)
		s.note = joinNotes(s.note, MissingNote(Verdict{Met: true}, put))
	}
	return put, err
}

// Retell makes the next iteration told what v found missing, once: the
// last verdict of a run paused before the iteration after it started.
func (s *Session) Retell(v Verdict) {
	if !v.Met {
		s.note = joinNotes(MissingNote(v, nil), s.note)
	}
}

// Restored is what was put back since the last judging.
func (s *Session) Restored() []string { return s.restored }

// Judged records a verdict on the work (its fingerprint): the next
// iteration is told what is missing; the stalemate, if it is one, is what
// stayed missing.
func (s *Session) Judged(iteration int, v Verdict, work string) (stayed []string, stalemate bool) {
	s.History = append(s.History, Judged{Iteration: iteration, Verdict: v, Work: work})
	s.restored = nil
	if !v.Met {
		s.note = joinNotes(MissingNote(v, nil), s.note)
	}
	return Stalemate(s.History, s.Patience)
}

// Note is what the next iteration is told, once.
func (s *Session) Note() string {
	n := s.note
	s.note = ""
	return n
}

func joinNotes(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "\n" + b
}
