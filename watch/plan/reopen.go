package plan

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Reopen is the plan's bytes with task id open again: its box's mark back
// to a space ("[x]" → "[ ]", one byte), or its passes value false; every
// other byte is kept. p must be the plan parsed from data.
func Reopen(data []byte, p *Plan, id string) ([]byte, error) {
	t := p.Task(id)
	if t == nil {
		return nil, fmt.Errorf("reopen task %s: no such task", id)
	}
	if t.State != Done {
		return nil, fmt.Errorf("reopen task %s: it is %s, not done", id, t.State)
	}
	if p.Format == FormatMarkdown {
		if t.mark < 0 || t.mark >= len(data) || (data[t.mark] != 'x' && data[t.mark] != 'X') {
			return nil, fmt.Errorf("reopen task %s: the plan changed since it was read", id)
		}
		out := bytes.Clone(data)
		out[t.mark] = ' '
		return out, nil
	}
	if t.mark < 0 || !bytes.HasPrefix(data[min(t.mark, len(data)):], []byte("true")) {
		return nil, fmt.Errorf("reopen task %s: the plan changed since it was read", id)
	}
	out := make([]byte, 0, len(data)+1)
	out = append(out, data[:t.mark]...)
	out = append(out, "false"...)
	return append(out, data[t.mark+len("true"):]...), nil
}

// SetReview is a JSON plan's bytes with story id's reviewStatus and
// reviewCount set: each value's bytes replaced where it is, or the field
// added after the story's last value when it has none; every other byte is
// kept. p must be the plan parsed from data.
func SetReview(data []byte, p *Plan, id, status string, count int) ([]byte, error) {
	t := p.Task(id)
	switch {
	case t == nil:
		return nil, fmt.Errorf("set review of task %s: no such task", id)
	case t.story == nil:
		return nil, fmt.Errorf("set review of task %s: a %s plan has no review fields", id, p.Format)
	case t.story.end >= len(data) || data[t.story.end] != '}':
		return nil, fmt.Errorf("set review of task %s: the plan changed since it was read", id)
	}
	quoted, _ := json.Marshal(status)
	type edit struct {
		start, end int // the bytes replaced
		text       string
	}
	var edits []edit
	var added []string // "key": value of the fields the story lacks
	for _, kv := range [][2]string{{"reviewStatus", string(quoted)}, {"reviewCount", strconv.Itoa(count)}} {
		if f, ok := t.story.fields[kv[0]]; ok {
			edits = append(edits, edit{f.at, f.at + len(f.raw), kv[1]})
		} else {
			added = append(added, fmt.Sprintf("%q: %s", kv[0], kv[1]))
		}
	}
	if len(added) > 0 {
		last := t.story.end - 1 // after the story's last value
		for strings.IndexByte(" \t\r\n", data[last]) >= 0 {
			last--
		}
		text := ", " + strings.Join(added, ", ")
		if data[last] == '{' {
			text = text[2:]
		}
		edits = append(edits, edit{last + 1, last + 1, text})
	}
	sort.Slice(edits, func(i, j int) bool { return edits[i].start > edits[j].start }) // from the end: the offsets before hold
	out := bytes.Clone(data)
	for _, e := range edits {
		out = append(out[:e.start:e.start], append([]byte(e.text), out[e.end:]...)...)
	}
	return out, nil
}
