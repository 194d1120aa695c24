package plan

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// A JSON plan is an object with userStories: the Claude Code ralph plugin's
// tasks.json (id, title, description, priority, passes, dependsOn,
// reviewStatus, reviewCount, acceptanceCriteria; verifyCommands at the top)
// or a plain prd.json (the same stories, passes and no review). It is read
// token by token to know each story's line and where its passes value is,
// so that Reopen edits that value and no other byte.

// story is one user story as read, each field's raw value and where it is.
type story struct {
	at, end int // byte offsets of the story's "{" and "}"
	fields  map[string]field
}

type field struct {
	raw json.RawMessage
	at  int // byte offset of the value
}

func parseJSON(name string, data []byte) (*Plan, error) {
	ls := newLines(data)
	fail := func(at int, format string, args ...any) error {
		return &ParseError{Line: ls.at(at), Why: fmt.Sprintf(format, args...)}
	}
	src := data
	if bytes.HasPrefix(data, []byte(bom)) { // spaces in its place keep every offset
		src = append([]byte("   "), data[len(bom):]...)
	}
	d := json.NewDecoder(bytes.NewReader(src))
	d.UseNumber()
	syntax := func(err error) error {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return fail(int(se.Offset)-1, "not JSON: %v", se)
		}
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			return fail(len(data), "not JSON: the file ends inside a value")
		}
		return fail(int(d.InputOffset()), "not JSON: %v", err)
	}
	if tok, err := d.Token(); err != nil {
		return nil, syntax(err)
	} else if tok != json.Delim('{') {
		return nil, fail(int(d.InputOffset())-1, `not a plan: a JSON plan is an object with "userStories"`)
	}
	var stories []story
	var haveStories bool
	top := map[string]field{}
	for d.More() {
		key, err := d.Token()
		if err != nil {
			return nil, syntax(err)
		}
		if key != "userStories" {
			var raw json.RawMessage
			if err := d.Decode(&raw); err != nil {
				return nil, syntax(err)
			}
			top[key.(string)] = field{raw, int(d.InputOffset()) - len(raw)}
			continue
		}
		at := int(d.InputOffset())
		if haveStories {
			return nil, fail(at, "userStories appears twice")
		}
		haveStories = true
		if stories, err = readStories(d, data); err != nil {
			var pe *ParseError
			if errors.As(err, &pe) {
				pe.Line = ls.at(pe.Line) // readStories gives offsets
				return nil, pe
			}
			return nil, syntax(err)
		}
	}
	if _, err := d.Token(); err != nil {
		return nil, syntax(err)
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, fail(int(d.InputOffset()), "more after the JSON object")
	}
	if !haveStories {
		return nil, fail(0, `no "userStories" in the JSON object`)
	}
	return storiesPlan(name, data, ls, top, stories)
}

// readStories reads the userStories array, each story's fields raw. An
// error that is a ParseError has a byte offset for its Line.
func readStories(d *json.Decoder, data []byte) ([]story, error) {
	start := int(d.InputOffset())
	if tok, err := d.Token(); err != nil {
		return nil, err
	} else if tok != json.Delim('[') {
		return nil, &ParseError{Line: start + skipSpace(data[start:]), Why: "userStories is not a list"}
	}
	var stories []story
	for d.More() {
		at := int(d.InputOffset())
		at += skipSpace(data[at:])
		tok, err := d.Token()
		if err != nil {
			return nil, err
		}
		if tok != json.Delim('{') {
			return nil, &ParseError{Line: at, Why: fmt.Sprintf("user story %d is not an object", len(stories)+1)}
		}
		s := story{at: at, fields: map[string]field{}}
		for d.More() {
			key, err := d.Token()
			if err != nil {
				return nil, err
			}
			var raw json.RawMessage
			if err := d.Decode(&raw); err != nil {
				return nil, err
			}
			s.fields[key.(string)] = field{raw, int(d.InputOffset()) - len(raw)}
		}
		if _, err := d.Token(); err != nil {
			return nil, err
		}
		s.end = int(d.InputOffset()) - 1
		stories = append(stories, s)
	}
	_, err := d.Token()
	return stories, err
}

// skipSpace is how many bytes of space and commas data starts with.
func skipSpace(data []byte) int {
	return len(data) - len(bytes.TrimLeft(data, " \t\r\n,:"))
}

// storiesPlan makes the plan of the stories read.
func storiesPlan(name string, data []byte, ls lines, top map[string]field, stories []story) (*Plan, error) {
	p := &Plan{Format: FormatPRD}
	if f, ok := top["verifyCommands"]; ok {
		p.Format = FormatTasksJSON
		if err := json.Unmarshal(f.raw, &p.VerifyCommands); err != nil {
			return nil, &ParseError{Line: ls.at(f.at), Why: "verifyCommands is not a list of strings"}
		}
	}
	if len(stories) == 0 {
		return nil, &ParseError{Line: ls.at(len(data)), Why: "no tasks: userStories is empty"}
	}
	for i := range stories {
		s := &stories[i]
		t := Task{Line: ls.at(s.at), mark: -1, story: s}
		bad := func(key, want string) error {
			return &ParseError{Line: ls.at(s.fields[key].at), Why: fmt.Sprintf("user story %d: %s is %s, want %s", i+1, key, s.fields[key].raw, want)}
		}
		for _, key := range []string{"reviewStatus", "reviewCount", "dependsOn"} {
			if _, ok := s.fields[key]; ok {
				p.Format = FormatTasksJSON
			}
		}
		var ok bool
		if t.ID, ok = stringField(s, "id"); !ok {
			return nil, bad("id", "a string or a number")
		}
		if t.ID == "" {
			t.ID = strconv.Itoa(i + 1)
		}
		t.Issue = IssueOf(t.ID)
		if t.Title, ok = stringField(s, "title"); !ok {
			return nil, bad("title", "a string")
		}
		desc, ok := stringField(s, "description")
		if !ok {
			return nil, bad("description", "a string")
		}
		notes, _ := stringField(s, "notes")
		if f, has := s.fields["passes"]; has {
			if err := json.Unmarshal(f.raw, &t.Passes); err != nil {
				return nil, bad("passes", "true or false")
			}
			t.mark = f.at
		}
		if f, has := s.fields["priority"]; has && string(f.raw) != "null" {
			if err := json.Unmarshal(f.raw, &t.Priority); err != nil || t.Priority < 0 {
				return nil, bad("priority", "a whole number, 1 first")
			}
		}
		for _, key := range []string{"dependsOn", "dependencies"} {
			if f, has := s.fields[key]; has && string(f.raw) != "null" {
				if err := json.Unmarshal(f.raw, &t.DependsOn); err != nil {
					return nil, bad(key, "a list of story ids")
				}
			}
		}
		if t.ReviewStatus, ok = stringField(s, "reviewStatus"); !ok {
			return nil, bad("reviewStatus", "a string")
		}
		if f, has := s.fields["reviewCount"]; has && string(f.raw) != "null" {
			if err := json.Unmarshal(f.raw, &t.ReviewCount); err != nil {
				return nil, bad("reviewCount", "a whole number")
			}
		}
		if f, has := s.fields["touches"]; has && string(f.raw) != "null" {
			if err := json.Unmarshal(f.raw, &t.Touches); err != nil {
				return nil, bad("touches", "a list of globs")
			}
		}
		if f, has := s.fields["acceptanceCriteria"]; has && string(f.raw) != "null" {
			if err := json.Unmarshal(f.raw, &t.Criteria); err != nil {
				return nil, bad("acceptanceCriteria", "a list of strings")
			}
		}
		t.State = Open
		if t.Passes {
			t.State = Done
		}
		t.Text = storyText(t, desc, notes)
		p.Tasks = append(p.Tasks, t)
	}
	if p.Format == FormatPRD && isTasksJSONName(name) {
		p.Format = FormatTasksJSON
	}
	return p, checkIDs(p)
}

// stringField is a story's string field ("" when absent or null); a number
// is taken as its text, for ids.
func stringField(s *story, key string) (string, bool) {
	f, ok := s.fields[key]
	if !ok || string(f.raw) == "null" {
		return "", true
	}
	var v string
	if err := json.Unmarshal(f.raw, &v); err == nil {
		return v, true
	}
	var n json.Number
	if err := json.Unmarshal(f.raw, &n); err == nil && key == "id" {
		return n.String(), true
	}
	return "", false
}

// storyText is a story as the agent is shown it.
func storyText(t Task, desc, notes string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s", t.ID, t.Title)
	if desc != "" {
		fmt.Fprintf(&b, "\n\n%s", desc)
	}
	if len(t.Criteria) > 0 {
		b.WriteString("\n\nAcceptance criteria:")
		for _, c := range t.Criteria {
			fmt.Fprintf(&b, "\n- %s", c)
		}
	}
	if notes != "" {
		fmt.Fprintf(&b, "\n\nNotes: %s", notes)
	}
	return b.String()
}

// checkIDs refuses two stories of one id, and a story that depends on one
// the plan does not have or on itself: the loop would wait for it forever.
func checkIDs(p *Plan) error {
	ids := make(map[string]int, len(p.Tasks)) // the line of each
	for _, t := range p.Tasks {
		if line, dup := ids[t.ID]; dup {
			return &ParseError{Line: t.Line, Why: fmt.Sprintf("story id %s is also the id of the story at line %d", t.ID, line)}
		}
		ids[t.ID] = t.Line
	}
	for _, t := range p.Tasks {
		for _, d := range t.DependsOn {
			switch {
			case d == t.ID:
				return &ParseError{Line: t.Line, Why: fmt.Sprintf("story %s depends on itself", t.ID)}
			case ids[d] == 0:
				return &ParseError{Line: t.Line, Why: fmt.Sprintf("story %s depends on %s, which is not in the plan", t.ID, d)}
			}
		}
	}
	return checkCycles(p)
}

// checkCycles refuses stories that wait for each other.
func checkCycles(p *Plan) error {
	deps := make(map[string][]string, len(p.Tasks))
	for _, t := range p.Tasks {
		deps[t.ID] = t.DependsOn
	}
	const (
		visiting = 1
		checked  = 2
	)
	mark := make(map[string]int, len(p.Tasks))
	var path []string
	var visit func(id string) []string
	visit = func(id string) []string {
		switch mark[id] {
		case checked:
			return nil
		case visiting:
			for i, q := range path {
				if q == id {
					return append(path[i:len(path):len(path)], id)
				}
			}
		}
		mark[id] = visiting
		path = append(path, id)
		for _, d := range deps[id] {
			if cycle := visit(d); cycle != nil {
				return cycle
			}
		}
		path = path[:len(path)-1]
		mark[id] = checked
		return nil
	}
	for _, t := range p.Tasks {
		if cycle := visit(t.ID); cycle != nil {
			return &ParseError{Line: p.Task(cycle[0]).Line, Why: "stories wait for each other: " + strings.Join(cycle, " → ")}
		}
	}
	return nil
}
