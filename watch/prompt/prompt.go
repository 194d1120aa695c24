// Package prompt reads a loop's prompt file and builds what each iteration
// delivers: its placeholders rendered, the check failures, the plan's task
// block, the person's notes and the iteration count.
package prompt

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"syscall"
	"unicode/utf8"
)

// Fail actions: where check failures go in the next prompt.
const (
	FailAppend  = "append"
	FailPrepend = "prepend"
	FailReplace = "replace"
)

// MaxSize is the largest prompt file accepted; larger ones are refused.
const MaxSize = 8 << 20

// FileError says what is wrong with a prompt file, in the contract's words.
type FileError struct {
	Path    string
	Missing bool // not found, as opposed to not readable or not a file
	Reason  string
}

func (e *FileError) Error() string {
	if e.Missing {
		return "prompt file not found: " + e.Path
	}
	if e.Reason != "" {
		return fmt.Sprintf("cannot read prompt file: %s (%s)", e.Path, e.Reason)
	}
	return "cannot read prompt file: " + e.Path
}

// NotUTF8Error is a prompt file that is not valid UTF-8: each tmux would
// type its bytes into the agent mangled, each differently.
type NotUTF8Error struct {
	Path   string
	Offset int // of the first byte that is not UTF-8, from 0
}

func (e *NotUTF8Error) Error() string {
	return fmt.Sprintf("prompt file %s is not valid UTF-8 at byte %d", e.Path, e.Offset)
}

// Read reads a prompt file fresh. It refuses directories, FIFOs and
// devices (which could block forever), files above MaxSize, binary
// files (holding NUL bytes) and text that is not UTF-8 (a *NotUTF8Error).
func Read(path string) (string, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|nonBlockOpenFlag, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return "", &FileError{Path: path, Missing: true}
	}
	if err != nil {
		return "", &FileError{Path: path, Reason: reason(err)}
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return "", &FileError{Path: path, Reason: reason(err)}
	}
	switch {
	case info.IsDir():
		return "", &FileError{Path: path, Reason: "is a directory"}
	case !info.Mode().IsRegular():
		return "", &FileError{Path: path, Reason: "not a regular file"}
	case info.Size() > MaxSize:
		return "", &FileError{Path: path, Reason: fmt.Sprintf("larger than %d MiB", MaxSize>>20)}
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxSize+1))
	if err != nil {
		return "", &FileError{Path: path, Reason: reason(err)}
	}
	if len(data) > MaxSize {
		return "", &FileError{Path: path, Reason: fmt.Sprintf("larger than %d MiB", MaxSize>>20)}
	}
	// No text prompt holds NUL: a binary file would be typed into the agent as junk.
	if bytes.IndexByte(data, 0) >= 0 {
		return "", &FileError{Path: path, Reason: "binary: holds NUL bytes"}
	}
	if at := invalidUTF8(data); at >= 0 {
		return "", &NotUTF8Error{Path: path, Offset: at}
	}
	return string(data), nil
}

// invalidUTF8 is the offset of the first byte of data that is not UTF-8, -1 for none.
func invalidUTF8(data []byte) int {
	for at := 0; at < len(data); {
		r, size := utf8.DecodeRune(data[at:])
		if r == utf8.RuneError && size <= 1 {
			return at
		}
		at += size
	}
	return -1
}

func reason(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// Vars are the values of the placeholders a prompt file may use.
type Vars struct {
	Iteration, MaxIterations int
	Name                     string
	CheckFailures            string
	Task                     *Task    // the plan's task of this iteration; nil: no plan
	Notes                    []string // the person's notes (ralph-watch note), oldest first
}

// Task holds the placeholders of a plan's task (--tasks).
type Task struct {
	ID, Text          string
	Done, Total, Left int
	Attempt           int
	Diff              string // the work since the loop started
	Mode              string // implement, review or fix
	ReviewFeedback    string
	ReviewFile        string // where a review writes what must change ({{review_file}})
	Block             string // appended to a prompt that places none of taskPlaceholders
	// ReviewLine names the review file, appended to a review's prompt that
	// places the task itself but not {{review_file}}: the review must know it.
	ReviewLine string
}

// taskPlaceholders are the ones that show a prompt places the task itself.
var taskPlaceholders = []string{"{{task}}", "{{task_id}}", "{{tasks_done}}", "{{tasks_total}}", "{{tasks_left}}", "{{attempt}}"}

// Render replaces the known placeholders ({{iteration}}, {{max_iterations}},
// {{remaining}}, {{name}}, {{check_failures}}, and with a plan {{task}},
// {{task_id}}, {{tasks_done}}, {{tasks_total}}, {{tasks_left}}, {{attempt}},
// {{diff}}, {{mode}}, {{review_feedback}}, {{review_file}}; {{notes}}, the person's) and leaves every other byte,
// including unknown {{...}}, as written.
func Render(text string, v Vars) string {
	if !strings.Contains(text, "{{") {
		return text
	}
	max, remaining := "unlimited", "unlimited"
	if v.MaxIterations > 0 {
		max = strconv.Itoa(v.MaxIterations)
		remaining = strconv.Itoa(v.MaxIterations - v.Iteration)
	}
	pairs := []string{
		"{{iteration}}", strconv.Itoa(v.Iteration),
		"{{max_iterations}}", max,
		"{{remaining}}", remaining,
		"{{name}}", v.Name,
		"{{check_failures}}", v.CheckFailures,
		"{{notes}}", strings.Join(v.Notes, "\n\n"),
	}
	if t := v.Task; t != nil {
		pairs = append(pairs,
			"{{task}}", t.Text,
			"{{task_id}}", t.ID,
			"{{tasks_done}}", strconv.Itoa(t.Done),
			"{{tasks_total}}", strconv.Itoa(t.Total),
			"{{tasks_left}}", strconv.Itoa(t.Left),
			"{{attempt}}", strconv.Itoa(t.Attempt),
			"{{diff}}", t.Diff,
			"{{mode}}", t.Mode,
			"{{review_feedback}}", t.ReviewFeedback,
			"{{review_file}}", t.ReviewFile,
		)
	}
	return strings.NewReplacer(pairs...).Replace(text)
}

// Compose builds the prompt an iteration delivers: the prompt file's text
// with its placeholders rendered; the last iteration's check failures put in
// by action (append, prepend or replace), unless the text places them itself
// with {{check_failures}}; the plan's task block when the text places no
// task placeholder; the person's notes under NotesHeading unless the text
// places them with {{notes}}; and with count, "Iteration X of Y, Z remaining."
// first. Parts are separated by a blank line.
func Compose(text string, v Vars, action string, count bool) string {
	prompt := Render(text, v)
	switch t := v.Task; {
	case t == nil:
	case !placesTask(text):
		prompt = JoinBlocks(prompt, t.Block)
	case t.ReviewLine != "" && !strings.Contains(text, "{{review_file}}"):
		prompt = JoinBlocks(prompt, t.ReviewLine)
	}
	if v.CheckFailures != "" && !strings.Contains(text, "{{check_failures}}") {
		switch action {
		case FailReplace:
			prompt = v.CheckFailures
		case FailPrepend:
			prompt = JoinBlocks(v.CheckFailures, prompt)
		default:
			prompt = JoinBlocks(prompt, v.CheckFailures)
		}
	}
	if len(v.Notes) > 0 && !strings.Contains(text, "{{notes}}") {
		prompt = JoinBlocks(prompt, NotesHeading+"\n\n"+strings.Join(v.Notes, "\n\n"))
	}
	if count {
		prompt = JoinBlocks(IterationCount(v.Iteration, v.MaxIterations), prompt)
	}
	return prompt
}

// NotesHeading heads the person's notes in a prompt that does not place
// them itself with {{notes}}.
const NotesHeading = "## Notes from the person"

// placesTask reports whether a prompt places the plan's task itself.
func placesTask(text string) bool {
	for _, p := range taskPlaceholders {
		if strings.Contains(text, p) {
			return true
		}
	}
	return false
}

// IterationCount is the line --include-iteration-count puts first.
func IterationCount(iteration, max int) string {
	if max <= 0 {
		return fmt.Sprintf("Iteration %d.", iteration)
	}
	return fmt.Sprintf("Iteration %d of %d, %d remaining.", iteration, max, max-iteration)
}

// JoinBlocks puts b after a with one blank line between them, adding only
// the line breaks a does not end with.
func JoinBlocks(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	case strings.HasSuffix(a, "\n\n"):
		return a + b
	case strings.HasSuffix(a, "\n"):
		return a + "\n" + b
	}
	return a + "\n\n" + b
}

// nonBlockOpenFlag keeps opening a FIFO from blocking until a writer appears.
const nonBlockOpenFlag = syscall.O_NONBLOCK
