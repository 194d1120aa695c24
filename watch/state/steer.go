package state

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"time"
)

// Steering is what the person asks of a running loop beside pause and stop
// (ralph-watch note, set): each request a file of its own in SteerDir, so
// that none overwrites another, taken by the watcher in the order they were
// made at its next iteration boundary, or when a watcher comes back.

// Kinds of steering request.
const (
	SteerNote  = "note"  // a note for the next prompt (or every prompt, sticky)
	SteerClear = "clear" // drop the notes queued so far, sticky ones too
	SteerSet   = "set"   // new limits
)

// Steer is one request of the person's.
type Steer struct {
	ID     string  `json:"id"` // its file's name: it is applied once
	Kind   string  `json:"kind"`
	Text   string  `json:"text,omitempty"`
	Sticky bool    `json:"sticky,omitempty"`
	Set    *Limits `json:"set,omitempty"`
	Made   string  `json:"made"`
}

// Note is a note the person left for the loop's prompts.
type Note struct {
	Text   string `json:"text"`
	Sticky bool   `json:"sticky,omitempty"` // every iteration until cleared
	Made   string `json:"made"`
}

// Limits are a loop's limits as the person set them while it ran; nil
// fields were not set. Kept in state.json: they outlast resume and restore,
// whose watcher is started with the first run's flags.
type Limits struct {
	MaxIterations     *int     `json:"max_iterations,omitempty"`
	AddIterations     int      `json:"add_iterations,omitempty"` // +N: in a request only, made absolute when applied
	MaxTime           *int     `json:"max_time,omitempty"`       // seconds
	MaxTokens         *int64   `json:"max_tokens,omitempty"`
	MaxCostUSD        *float64 `json:"max_cost_usd,omitempty"`
	InactivityTimeout *int     `json:"inactivity_timeout,omitempty"` // seconds
	IterationTimeout  *int     `json:"iteration_timeout,omitempty"`  // seconds
	TaskAttempts      *int     `json:"task_attempts,omitempty"`
	// Add are the +N values of a request ("N more"), each made absolute
	// (Check) against the limit in force when it is applied.
	Add *Limits `json:"add,omitempty"`
}

// Empty reports whether nothing is set.
func (l *Limits) Empty() bool {
	return l == nil || *l == Limits{}
}

// Merge sets in l what o sets.
func (l *Limits) Merge(o *Limits) {
	if o == nil {
		return
	}
	if o.MaxIterations != nil {
		l.MaxIterations = o.MaxIterations
	}
	if o.MaxTime != nil {
		l.MaxTime = o.MaxTime
	}
	if o.MaxTokens != nil {
		l.MaxTokens = o.MaxTokens
	}
	if o.MaxCostUSD != nil {
		l.MaxCostUSD = o.MaxCostUSD
	}
	if o.InactivityTimeout != nil {
		l.InactivityTimeout = o.InactivityTimeout
	}
	if o.IterationTimeout != nil {
		l.IterationTimeout = o.IterationTimeout
	}
	if o.TaskAttempts != nil {
		l.TaskAttempts = o.TaskAttempts
	}
}

// Ran is what a loop has used of its limits so far.
type Ran struct {
	Iterations int
	Elapsed    time.Duration
	Tokens     int64
	CostUSD    float64
	Attempts   int // the most tries a task still open has had
}

// Attempts is the most tries a task of the plan that is still open has had.
func (t *Tasks) Attempts() int {
	n := 0
	if t == nil {
		return 0
	}
	for _, item := range t.Items {
		if item.State != "done" && item.State != "skipped" && item.State != "approved" {
			n = max(n, item.Attempts)
		}
	}
	return n
}

// Check says why limits may not be set on a loop that ran so far, with
// now the limits in force (a nil field: not known here, 0: none); it makes
// each +N absolute where now knows the limit it adds to.
func (l *Limits) Check(ran Ran, now Limits) error {
	if l.AddIterations != 0 { // a request made before +N took every limit
		a := Limits{}
		if l.Add != nil {
			a = *l.Add
		}
		n := l.AddIterations
		a.MaxIterations, l.AddIterations = &n, 0
		l.Add = &a
	}
	if err := l.resolve(now); err != nil {
		return err
	}
	switch {
	case l.MaxIterations != nil && *l.MaxIterations < 0:
		return fmt.Errorf("--max-iterations %d: must be 0 (no limit) or more", *l.MaxIterations)
	case l.MaxIterations != nil && *l.MaxIterations > 0 && *l.MaxIterations < ran.Iterations:
		return fmt.Errorf("--max-iterations %d is below the %d iterations already run", *l.MaxIterations, ran.Iterations)
	case l.MaxTime != nil && *l.MaxTime > 0 && time.Duration(*l.MaxTime)*time.Second < ran.Elapsed:
		return fmt.Errorf("--max-time %s is below the %s the loop has already run", time.Duration(*l.MaxTime)*time.Second, ran.Elapsed.Round(time.Second))
	case l.MaxTokens != nil && *l.MaxTokens > 0 && *l.MaxTokens < ran.Tokens:
		return fmt.Errorf("--max-tokens %d is below the %d tokens already spent", *l.MaxTokens, ran.Tokens)
	case l.MaxCostUSD != nil && *l.MaxCostUSD > 0 && *l.MaxCostUSD < ran.CostUSD:
		return fmt.Errorf("--max-cost %.2f is below the $%.2f already spent", *l.MaxCostUSD, ran.CostUSD)
	case l.TaskAttempts != nil && *l.TaskAttempts < 1:
		return fmt.Errorf("--task-attempts %d: must be 1 or more", *l.TaskAttempts)
	case l.TaskAttempts != nil && *l.TaskAttempts < ran.Attempts:
		return fmt.Errorf("--task-attempts %d is below the %d tries an open task has had", *l.TaskAttempts, ran.Attempts)
	}
	for _, t := range []*int{l.MaxTime, l.InactivityTimeout, l.IterationTimeout} {
		if t != nil && *t < 0 {
			return fmt.Errorf("a time may not be negative")
		}
	}
	if l.InactivityTimeout != nil && *l.InactivityTimeout == 0 {
		return fmt.Errorf("--inactivity-timeout must be more than 0")
	}
	return nil
}

// resolve makes each +N of l absolute: the limit in force plus N. One
// that now does not know stays +N, for the watcher to resolve.
func (l *Limits) resolve(now Limits) error {
	if l.Add == nil {
		return nil
	}
	a := new(Limits)
	*a = *l.Add // a copy of l may share its Add: it is not changed
	l.Add = a
	for _, err := range []error{
		plus(&l.MaxIterations, &a.MaxIterations, now.MaxIterations, "--max-iterations N"),
		plus(&l.MaxTime, &a.MaxTime, now.MaxTime, "--max-time D"),
		plus(&l.MaxTokens, &a.MaxTokens, now.MaxTokens, "--max-tokens N"),
		plus(&l.MaxCostUSD, &a.MaxCostUSD, now.MaxCostUSD, "--max-cost USD"),
		plus(&l.InactivityTimeout, &a.InactivityTimeout, now.InactivityTimeout, ""),
		plus(&l.IterationTimeout, &a.IterationTimeout, now.IterationTimeout, "--iteration-timeout D"),
		plus(&l.TaskAttempts, &a.TaskAttempts, now.TaskAttempts, ""),
	} {
		if err != nil {
			return err
		}
	}
	if a.Empty() {
		l.Add = nil
	}
	return nil
}

// plus makes the +N in *add absolute on the limit in force (nil: not
// known, *add stays). flag ("--max-time D") is a limit where 0 is none,
// which cannot be added to; "": any value can.
func plus[T int | int64 | time.Duration | float64](set, add **T, now *T, flag string) error {
	if *add == nil || now == nil {
		return nil
	}
	if flag != "" && *now <= 0 {
		name, _, _ := strings.Cut(flag, " ")
		return fmt.Errorf("the loop has no %s limit to add to; give one with %s", name, flag)
	}
	n := *now + **add
	*set, *add = &n, nil
	return nil
}

// String is the limits set, as [SET] and status show them; a +N as "+N".
func (l *Limits) String() string {
	var parts []string
	for _, p := range l.pairs() {
		parts = append(parts, p[0]+" "+p[1])
	}
	if l.AddIterations != 0 {
		parts = append(parts, fmt.Sprintf("max-iterations %+d", l.AddIterations))
	}
	if l.Add != nil {
		for _, p := range l.Add.pairs() {
			parts = append(parts, p[0]+" +"+p[1])
		}
	}
	return strings.Join(parts, " ")
}

// pairs are the limits l sets, each its flag's name and its value.
func (l *Limits) pairs() [][2]string {
	var pairs [][2]string
	add := func(name, value string) { pairs = append(pairs, [2]string{name, value}) }
	if l.MaxIterations != nil {
		add("max-iterations", fmt.Sprint(*l.MaxIterations))
	}
	if l.MaxTime != nil {
		add("max-time", (time.Duration(*l.MaxTime) * time.Second).String())
	}
	if l.MaxTokens != nil {
		add("max-tokens", fmt.Sprint(*l.MaxTokens))
	}
	if l.MaxCostUSD != nil {
		add("max-cost", fmt.Sprintf("%.2f", *l.MaxCostUSD))
	}
	if l.InactivityTimeout != nil {
		add("inactivity-timeout", (time.Duration(*l.InactivityTimeout) * time.Second).String())
	}
	if l.IterationTimeout != nil {
		add("iteration-timeout", (time.Duration(*l.IterationTimeout) * time.Second).String())
	}
	if l.TaskAttempts != nil {
		add("task-attempts", fmt.Sprint(*l.TaskAttempts))
	}
	return pairs
}

var steerSeq atomic.Int64

// Steer leaves a steering request for the watcher (written atomically,
// its own file: two commands at once both land).
func (s *Store) Steer(r Steer, now time.Time) (Steer, error) {
	dir := s.Path(SteerDir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return r, fmt.Errorf("write request: %w", err)
	}
	r.ID = fmt.Sprintf("%020d-%d-%06d.json", now.UnixNano(), os.Getpid(), steerSeq.Add(1))
	if r.Made == "" { // a note passed on keeps when the person made it
		r.Made = Stamp(now)
	}
	data, err := json.Marshal(r)
	if err != nil {
		return r, err
	}
	if err := writeAtomic(filepath.Join(dir, r.ID), ".steer-*", data); err != nil {
		return r, fmt.Errorf("write request: %w", err)
	}
	return r, nil
}

// Steers are the steering requests not yet taken, oldest first. A file
// that cannot be read is skipped (a writer's temp file, or junk).
func (s *Store) Steers() []Steer {
	entries, _ := os.ReadDir(s.Path(SteerDir))
	var out []Steer
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".json") || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(s.Path(SteerDir), e.Name()))
		var r Steer
		if err != nil || json.Unmarshal(data, &r) != nil {
			continue
		}
		r.ID = e.Name()
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// SteerTaken removes a request the watcher has applied (and recorded so).
func (s *Store) SteerTaken(id string) error {
	err := os.Remove(filepath.Join(s.Path(SteerDir), id))
	if os.IsNotExist(err) {
		return nil
	}
	return err
}

// SteerPending reports whether request id's file is still there.
func (s *Store) SteerPending(id string) bool {
	_, err := os.Stat(filepath.Join(s.Path(SteerDir), id))
	return err == nil
}

// Pass leaves a request made elsewhere (a fan's, passed on to its loop)
// under its own id: passed twice, it is still one request.
func (s *Store) Pass(r Steer) error {
	dir := s.Path(SteerDir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("write request: %w", err)
	}
	data, err := json.Marshal(r)
	if err != nil {
		return err
	}
	if err := writeAtomic(filepath.Join(dir, r.ID), ".steer-*", data); err != nil {
		return fmt.Errorf("write request: %w", err)
	}
	return nil
}

// Pending are the limits a loop will have once its watcher takes the set
// requests among steers it has not applied yet (steered): from inForce,
// each in turn, checked against what it ran as the watcher checks it (a
// refused one changes nothing). Both the status line and status show them.
func Pending(inForce Limits, ran func() Ran, steers []Steer, steered []string) Limits {
	var r *Ran // read once a set waits
	for _, s := range steers {
		if s.Kind != SteerSet || s.Set == nil || slices.Contains(steered, s.ID) {
			continue
		}
		if r == nil {
			got := ran()
			r = &got
		}
		if c := *s.Set; c.Check(*r, inForce) == nil {
			inForce.Merge(&c)
		}
	}
	return inForce
}
