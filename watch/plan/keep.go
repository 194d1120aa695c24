package plan

import "strconv"

// Known is a task as an earlier reading of the plan named it.
type Known struct {
	ID    string
	Title string
}

// KeepIDs gives each task whose id is only its place in a Markdown plan the
// id it had in an earlier reading (known) when a task of the same title had
// it, so that a task the agent inserted above another does not take that
// one's id, attempts and verdicts. A task whose title is new keeps its place
// (the agent edited the title where it stood: "- [x] Add X (done in abc)")
// unless a task it moved past has that id, then it gets a new number. Title
// compares a task's title with a known one (as it was recorded). Ids written
// in the file never change.
func (p *Plan) KeepIDs(known []Known, title func(string) string) {
	if len(known) == 0 {
		return
	}
	byTitle := make(map[string][]string, len(known)) // title → ids, in order
	held := make(map[string]bool, len(known)+len(p.Tasks))
	for _, k := range known {
		byTitle[k.Title] = append(byTitle[k.Title], k.ID)
		held[k.ID] = true
	}
	taken := make(map[string]bool, len(p.Tasks))
	for _, t := range p.Tasks {
		if !t.ordinal {
			taken[t.ID] = true
		}
	}
	var rest []int // place ids whose title no known task has
	for i := range p.Tasks {
		t := &p.Tasks[i]
		if !t.ordinal {
			continue
		}
		key := title(t.Title)
		ids := byTitle[key]
		for len(ids) > 0 && taken[ids[0]] {
			ids = ids[1:]
		}
		if len(ids) == 0 {
			rest = append(rest, i)
			continue
		}
		t.ID, byTitle[key] = ids[0], ids[1:]
		taken[t.ID] = true
	}
	next := 1
	for _, i := range rest {
		t := &p.Tasks[i]
		if !taken[t.ID] {
			taken[t.ID] = true
			continue
		}
		for taken[strconv.Itoa(next)] || held[strconv.Itoa(next)] {
			next++
		}
		t.ID = strconv.Itoa(next)
		taken[t.ID] = true
	}
}
