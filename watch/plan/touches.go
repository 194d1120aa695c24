package plan

import (
	"bytes"
	"fmt"
	"strings"
)

// touchesLine reads a Markdown task's "touches: glob, …" line (a plain
// line or a sub-item, any case): the globs of the files it changes.
func touchesLine(text string) []string {
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		line = strings.TrimSpace(strings.TrimLeft(line, "-*+"))
		if len(line) < len("touches:") || !strings.EqualFold(line[:len("touches:")], "touches:") {
			continue
		}
		var globs []string
		for _, g := range strings.Split(line[len("touches:"):], ",") {
			if g = strings.Trim(strings.TrimSpace(g), "`"); g != "" {
				globs = append(globs, g)
			}
		}
		return globs
	}
	return nil
}

// Tick is the plan's bytes with task id done: its box's mark "x", or its
// passes value true; every other byte is kept. p must be the plan parsed
// from data.
func Tick(data []byte, p *Plan, id string) ([]byte, error) {
	t := p.Task(id)
	switch {
	case t == nil:
		return nil, fmt.Errorf("tick task %s: no such task", id)
	case t.State == Done:
		return data, nil
	case p.Format == FormatMarkdown:
		if t.mark < 0 || t.mark >= len(data) {
			return nil, fmt.Errorf("tick task %s: the plan changed since it was read", id)
		}
		out := bytes.Clone(data)
		out[t.mark] = 'x'
		return out, nil
	}
	if t.mark < 0 || !bytes.HasPrefix(data[min(t.mark, len(data)):], []byte("false")) {
		return nil, fmt.Errorf(`tick task %s: its "passes" is not false in the plan`, id)
	}
	out := make([]byte, 0, len(data))
	out = append(out, data[:t.mark]...)
	out = append(out, "true"...)
	return append(out, data[t.mark+len("false"):]...), nil
}
