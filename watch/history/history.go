// Package history reads what a loop left in its state folder (state.json,
// receipts.jsonl, iterations.log, casts/) into one record of the run, iteration
// by iteration, for the commands that look back on it: finish and report.
package history

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/cast"
	"github.com/ralph-tmux/ralph.tmux/watch/receipt"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
)

// Run is one loop's record.
type Run struct {
	Name       string
	Store      *state.Store
	State      *state.State
	Receipts   []receipt.Receipt
	Log        string // iterations.log, whole
	Iterations []*Iteration
}

// Iteration is what one iteration did, as far as the records tell.
type Iteration struct {
	N        int
	Started  time.Time
	Ended    time.Time     // zero when no end was logged
	Duration time.Duration // as the log's END line says it, else from the receipt's times, else the log's
	Ending   string        // how it ended, as logged: "exit=0", "inactivity_timeout=180s", "done: done_pattern"
	Failed   bool          // a [FAIL] line: the iteration counted as a failure
	// LoopEnded is the loop's reason when it ended after this iteration
	// ("done_pattern", "max_iterations"…).
	LoopEnded string
	Checks    []Check
	Receipt   *receipt.Receipt // nil when none was written
	Cast      string           // the cast's path, "" when there is none
}

// Check is one check's verdict after an iteration.
type Check struct {
	Command string
	Passed  bool
	Exit    int
}

// How is how the iteration ended, in words: as logged, and the loop's end
// after it.
func (it *Iteration) How() string {
	how := it.Ending
	if it.LoopEnded != "" {
		if how != "" {
			how += ", "
		}
		how += "loop ended " + it.LoopEnded
	}
	return how
}

// ChecksPassed counts the iteration's passing checks.
func (it *Iteration) ChecksPassed() (passed, all int) {
	for _, c := range it.Checks {
		if c.Passed {
			passed++
		}
	}
	return passed, len(it.Checks)
}

// Load reads loop name's state folder under root.
func Load(root, name string) (*Run, error) {
	store, err := state.Find(root, name)
	if err != nil {
		return nil, err
	}
	st, err := store.Load()
	if err != nil {
		return nil, err
	}
	r := &Run{Name: name, Store: store, State: st}
	r.Receipts, _ = receipt.Load(store.Path(state.ReceiptsFile))
	if data, err := os.ReadFile(store.Path(state.LogFile)); err == nil {
		r.Log = string(data)
	}
	r.Iterations = iterations(r.Log, r.Receipts)
	casts := store.Path(state.CastsDir)
	if have, err := cast.Iterations(casts); err == nil {
		byN := r.byNumber()
		for _, n := range have {
			it := byN[n]
			if it == nil {
				it = &Iteration{N: n}
				r.Iterations = append(r.Iterations, it)
				byN[n] = it
			}
			it.Cast = filepath.Join(casts, cast.FileName(n))
		}
		sortIterations(r.Iterations)
	}
	return r, nil
}

func (r *Run) byNumber() map[int]*Iteration {
	m := map[int]*Iteration{}
	for _, it := range r.Iterations {
		m[it.N] = it
	}
	return m
}

// Ended is how the whole run ended ("done_pattern", "max_iterations"…), ""
// while it runs.
func (r *Run) Ended() string {
	if r.State.ExitReason == nil {
		return ""
	}
	return *r.State.ExitReason
}

// Total sums the run's receipts.
func (r *Run) Total() receipt.Receipt { return receipt.Total(r.Receipts) }

// Spent is what the run spent in words (receipt.Receipt.Words), or "no
// receipts".
func (r *Run) Spent() string {
	if len(r.Receipts) == 0 {
		return "no receipts"
	}
	return r.Total().Words()
}

var (
	logLine       = regexp.MustCompile(`^(\S+) \[([A-Z]+)\] (.*)$`)
	iterationWord = regexp.MustCompile(`^iteration (\d+)(?:/\d+)?(?: (.*))?$`)
	doneLine      = regexp.MustCompile(`^loop (?:complete|ended|failed) after (\d+) iterations reason=(\S+)`)
	checkLine     = regexp.MustCompile(`^(pass|fail) exit=(-?\d+) .*check=(".*")$`)
	trailing      = regexp.MustCompile(` (duration=` + tookForm + `|attempt=\S+|backoff=\S+)`)
	loggedTook    = regexp.MustCompile(` duration=(` + tookForm + `)`)
)

// tookForm is a duration as the log writes it: 5s, 3m 42s, 1h 2m.
const tookForm = `\d+[hms](?: \d+[ms])?`

// iterations reads the log's lines and the receipts into iterations, in order.
func iterations(log string, receipts []receipt.Receipt) []*Iteration {
	byN := map[int]*Iteration{}
	logged := map[int]time.Duration{} // the durations END lines give, as the person read them
	get := func(n int) *Iteration {
		if byN[n] == nil {
			byN[n] = &Iteration{N: n}
		}
		return byN[n]
	}
	sc := bufio.NewScanner(strings.NewReader(log))
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		m := logLine.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		at, _ := time.ParseInLocation(state.TimeFormat, m[1], time.Local)
		event, msg := m[2], m[3]
		if d := doneLine.FindStringSubmatch(msg); d != nil && (event == "DONE" || event == "FAIL") { // FAIL: a limit reached on failed iterations
			n, _ := strconv.Atoi(d[1])
			if it := byN[n]; it != nil {
				it.LoopEnded = d[2]
				if it.Ended.IsZero() {
					it.Ended = at
				}
			}
			continue
		}
		w := iterationWord.FindStringSubmatch(msg)
		if w == nil {
			continue
		}
		n, _ := strconv.Atoi(w[1])
		rest := w[2]
		switch event {
		case "START":
			it := get(n)
			if it.Started.IsZero() {
				it.Started = at
			}
		case "END", "FAIL", "TIMEOUT":
			it := get(n)
			if event == "FAIL" {
				it.Failed = true
			}
			if how := strings.TrimSpace(trailing.ReplaceAllString(rest, "")); how != "" && (event != "TIMEOUT" || it.Ending == "") {
				it.Ending = how
			}
			if event != "TIMEOUT" {
				it.Ended = at
			}
			if d := loggedTook.FindStringSubmatch(rest); d != nil && event == "END" {
				if took, err := time.ParseDuration(strings.ReplaceAll(d[1], " ", "")); err == nil {
					logged[n] = took
				}
			}
		case "CHECK":
			c := checkLine.FindStringSubmatch(rest)
			if c == nil {
				continue
			}
			code, _ := strconv.Atoi(c[2])
			command, err := strconv.Unquote(c[3])
			if err != nil {
				command = c[3]
			}
			it := get(n)
			it.Checks = append(it.Checks, Check{Command: command, Passed: c[1] == "pass", Exit: code})
		}
	}
	for i := range receipts {
		rc := receipts[i]
		it := get(rc.Iteration)
		it.Receipt = &receipts[i]
		if !rc.Started.IsZero() {
			it.Started = rc.Started
		}
		if !rc.Ended.IsZero() {
			it.Ended = rc.Ended
		}
	}
	var out []*Iteration
	for _, it := range byN {
		if it.N < 1 {
			continue
		}
		if took, ok := logged[it.N]; ok {
			it.Duration = took // a receipt is written after the checks: its end is later
		} else if !it.Started.IsZero() && !it.Ended.IsZero() && it.Ended.After(it.Started) {
			it.Duration = it.Ended.Sub(it.Started)
		}
		out = append(out, it)
	}
	sortIterations(out)
	return out
}

func sortIterations(its []*Iteration) {
	sort.Slice(its, func(i, j int) bool { return its[i].N < its[j].N })
}
