// Package plan reads the plan a loop works through: a Markdown checklist
// (IMPLEMENTATION_PLAN.md), the Claude Code ralph plugin's tasks.json, or a
// plain prd.json. It says which tasks there are, which are done, which one
// comes next, and which parts of the file looked like tasks and are not
// (boxes in code, quotes, tables, criteria sections), so a person can check
// a plan before a night's run. It is pure: bytes in, a Plan out.
package plan

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Format is the kind of plan file, told apart by content.
type Format string

const (
	FormatMarkdown  Format = "markdown"
	FormatTasksJSON Format = "tasks.json" // the Claude Code ralph plugin's
	FormatPRD       Format = "prd.json"
)

// State is where a task stands.
type State string

const (
	Open       State = "open"
	Done       State = "done"
	InProgress State = "in-progress"
)

// Task is one unit of work: a top-level box of a Markdown plan, or a user story.
type Task struct {
	ID           string   // JSON: its id; Markdown: an explicit id at the start of its text ("US-001:", "T3", "1.2"; "#12" is GitHub issue 12's, gh-12), else its ordinal
	Title        string   // the item's first line, without the box and the explicit id
	Text         string   // the task with its sub-items and criteria, as the agent sees it
	State        State    // open, done or in progress
	Line         int      // 1-based line of the box (Markdown) or of the story (JSON)
	Priority     int      // JSON priority; 0: none
	DependsOn    []string // ids of the tasks that must be done first
	Passes       bool     // JSON passes
	ReviewStatus string   // tasks.json reviewStatus
	ReviewCount  int      // tasks.json reviewCount
	Criteria     []string // acceptance criteria
	Touches      []string // globs of the files it changes: two tasks whose globs meet never run at once (ralph-watch fan)
	Issue        int      // the GitHub issue it came from: a Markdown task written "#12 title", or a JSON story of id gh-12; 0: none

	mark    int    // byte offset of the box's mark (Markdown) or of the passes value (JSON); -1: none
	story   *story // JSON: the story as read, for editing its values in place
	ordinal bool   // Markdown: the id is the task's place, not written in the file
	lineAt  int    // Markdown: byte offset of the box's line
	end     int    // Markdown: byte offset after the task's last line that is not blank
}

// Ignored is a part of the file that looked like a task and is not.
type Ignored struct {
	Line int
	Text string // the line, trimmed
	Why  string // "in a fenced code block", `under "Success criteria"`, …
}

// Plan is what the loop sees of a plan file.
type Plan struct {
	Format         Format
	Tasks          []Task
	Ignored        []Ignored
	VerifyCommands []string  // tasks.json verifyCommands
	Renamed        []Renamed // tasks whose id an earlier task has, given another
}

// Renamed is a task whose id an earlier task already has, and the id the
// loop gives it instead.
type Renamed struct {
	Line    int
	ID, Was string
	Ordinal bool // Was is the task's place, not an id written in the file
	FirstAt int  // the line of the task that has the id
}

// ParseError is a file that cannot be read as a plan.
type ParseError struct {
	Name string // the file, as Parse was told
	Line int
	Why  string
}

func (e *ParseError) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Why) }

// Parse reads a plan: JSON when the file is a JSON object (it must then have
// userStories), else Markdown. name is only for messages and, when the
// content cannot tell, for telling tasks.json from prd.json.
func Parse(name string, data []byte) (*Plan, error) {
	var p *Plan
	var err error
	if looksJSON(data) {
		p, err = parseJSON(name, data)
	} else {
		p, err = parseMarkdown(data)
	}
	if err != nil {
		if pe, ok := err.(*ParseError); ok {
			pe.Name = name
		}
		return nil, err
	}
	p.Renamed = uniqueIDs(p.Tasks)
	return p, nil
}

// bom is the byte order mark some editors start a UTF-8 file with.
const bom = "\xef\xbb\xbf"

// looksJSON is true for a file whose first byte that is not space is '{',
// and for a JSON list (not a plan, and to be told so).
func looksJSON(data []byte) bool {
	data = bytes.TrimPrefix(data, []byte(bom))
	data = bytes.TrimLeft(data, " \t\r\n")
	return len(data) > 0 && (data[0] == '{' || data[0] == '[' && json.Valid(data))
}

// uniqueIDs gives a task whose id an earlier task already has a suffix
// ("1.2-2"), so that an id names one task, and says which it renamed.
func uniqueIDs(tasks []Task) []Renamed {
	seen := make(map[string]int, len(tasks)) // id: the line of its task
	var renamed []Renamed
	for i := range tasks {
		id := tasks[i].ID
		for n := 2; seen[id] != 0; n++ {
			id = fmt.Sprintf("%s-%d", tasks[i].ID, n)
		}
		if id != tasks[i].ID {
			renamed = append(renamed, Renamed{Line: tasks[i].Line, ID: id, Was: tasks[i].ID, Ordinal: tasks[i].ordinal, FirstAt: seen[tasks[i].ID]})
		}
		tasks[i].ID = id
		seen[id] = max(tasks[i].Line, 1)
	}
	return renamed
}

// Task is the task of that id, or nil.
func (p *Plan) Task(id string) *Task {
	for i := range p.Tasks {
		if p.Tasks[i].ID == id {
			return &p.Tasks[i]
		}
	}
	return nil
}

// Next is the task to work on: the first open (or in-progress) task whose
// DependsOn are all done and that skipped does not name; JSON stories by
// priority (lower first, none last), then order. Nil when there is none.
func (p *Plan) Next(skipped func(id string) bool) *Task {
	done := make(map[string]bool, len(p.Tasks))
	for _, t := range p.Tasks {
		if t.State == Done {
			done[t.ID] = true
		}
	}
	order := make([]int, len(p.Tasks))
	for i := range order {
		order[i] = i
	}
	rank := func(i int) int {
		if p.Tasks[i].Priority == 0 {
			return math.MaxInt
		}
		return p.Tasks[i].Priority
	}
	sort.SliceStable(order, func(a, b int) bool { return rank(order[a]) < rank(order[b]) })
	for _, i := range order {
		t := &p.Tasks[i]
		if t.State == Done || (skipped != nil && skipped(t.ID)) || !allDone(t.DependsOn, done) {
			continue
		}
		return t
	}
	return nil
}

func allDone(ids []string, done map[string]bool) bool {
	for _, id := range ids {
		if !done[id] {
			return false
		}
	}
	return true
}

// Counts is how many tasks there are, how many are done and how many are
// not (open or in progress).
func (p *Plan) Counts() (total, done, open int) {
	for _, t := range p.Tasks {
		if t.State == Done {
			done++
		}
	}
	return len(p.Tasks), done, len(p.Tasks) - done
}

// lines maps byte offsets to 1-based line numbers.
type lines []int // the offset where each line starts

func newLines(data []byte) lines {
	ls := lines{0}
	for i, c := range data {
		if c == '\n' {
			ls = append(ls, i+1)
		}
	}
	return ls
}

func (ls lines) at(offset int) int {
	return sort.Search(len(ls), func(i int) bool { return ls[i] > offset })
}

// isTasksJSONName is true for a file named like the plugin's plan.
func isTasksJSONName(name string) bool {
	return strings.EqualFold(filepath.Base(name), "tasks.json")
}

// Load reads and parses a plan file; its errors name the file:
// "PATH line N: why", or "read plan PATH: cause".
func Load(path string) (*Plan, []byte, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, fmt.Errorf("read plan %s: %w", path, unwrapPath(err))
	}
	p, err := Parse(path, data)
	if err != nil {
		return nil, nil, fmt.Errorf("%s %w", path, err)
	}
	return p, data, nil
}

// unwrapPath drops the path an os error repeats.
func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
