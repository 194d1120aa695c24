package receipt

// What the readers share: session files are JSON lines written by someone
// else, read with no trust in any line.

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"time"
)

// eachLine calls fn with every line of r, however long (a Claude transcript
// line can carry a whole image).
func eachLine(r io.Reader, fn func(line []byte)) error {
	br := bufio.NewReader(r)
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 {
			fn(line)
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// inWindow says whether a line stamped ts belongs to the stretch that began
// at since. A zero since takes every line, stamped or not; otherwise a line
// whose stamp cannot be read is left out.
func inWindow(ts string, since time.Time) bool {
	if since.IsZero() {
		return true
	}
	t, err := time.Parse(time.RFC3339Nano, ts)
	return err == nil && !t.Before(since)
}

// event is what one line of an event log says: a tool was called, or a
// model call ended with these tokens (neither: a line of another kind).
type event struct {
	stamp string
	tool  bool
	model string
	call  *Tokens
}

// eventLine is one line of an event log as its JSON decodes; event says
// what it reports, ok false for a line to pass over.
type eventLine interface {
	event() (e event, ok bool)
}

// readEvents counts what an event log (Copilot CLI's session events,
// OpenCode's plugin's lines) reports from since on, its lines read as L.
func readEvents[L eventLine](r io.Reader, since time.Time) (Usage, error) {
	var u Usage
	err := eachLine(r, func(line []byte) {
		var l L
		if json.Unmarshal(line, &l) != nil {
			return
		}
		e, ok := l.event()
		if !ok || !inWindow(e.stamp, since) {
			return
		}
		switch {
		case e.tool:
			u.ToolCalls++
		case e.call != nil:
			u.Turns++
			u.add(e.model, *e.call)
		}
	})
	return u, err
}

// sane says whether every count could be one model call's: not negative,
// and not so large that sums overflow.
func sane(counts ...int64) bool {
	for _, n := range counts {
		if n < 0 || n > 1<<40 {
			return false
		}
	}
	return true
}

// readFile runs a reader over the file at path.
func readFile(path string, since time.Time, read func(io.Reader, time.Time) (Usage, error)) (Usage, error) {
	f, err := os.Open(path)
	if err != nil {
		return Usage{}, err
	}
	defer f.Close()
	return read(f, since)
}

// agentFolder is an agent's own folder: $envVar, else dot under HOME.
func agentFolder(getenv func(string) string, envVar, dot string) string {
	if dir := getenv(envVar); dir != "" {
		return dir
	}
	return filepath.Join(getenv("HOME"), dot)
}

// inFolder vets a session file by the folder it says its session ran in
// (cwdOf; "": it does not say): any when cwd is "".
func inFolder(cwd string, cwdOf func(path string) string) func(path string) bool {
	return func(path string) bool {
		if cwd == "" {
			return true
		}
		dir := cwdOf(path)
		return dir == "" || samePath(dir, cwd)
	}
}

// lastWritten is the file among paths written last at or after since, or ""
// when none was. keep, when set, vets each candidate (its cwd, say).
func lastWritten(paths []string, since time.Time, keep func(path string) bool) string {
	best, bestTime := "", time.Time{}
	for _, p := range paths {
		info, err := os.Stat(p)
		if err != nil || !info.Mode().IsRegular() || info.ModTime().Before(since) {
			continue
		}
		if keep != nil && !keep(p) {
			continue
		}
		if best == "" || info.ModTime().After(bestTime) || info.ModTime().Equal(bestTime) && p > best {
			best, bestTime = p, info.ModTime()
		}
	}
	return best
}

// samePath says whether two folder paths name the same folder, as far as
// their text and symbolic links tell.
func samePath(a, b string) bool {
	a, b = filepath.Clean(a), filepath.Clean(b)
	if a == b {
		return true
	}
	ra, errA := filepath.EvalSymlinks(a)
	rb, errB := filepath.EvalSymlinks(b)
	return errA == nil && errB == nil && ra == rb
}
