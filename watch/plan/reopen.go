package plan

import (
	"bytes"
	"fmt"
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
