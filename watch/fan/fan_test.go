package fan

import (
	"testing"

	"github.com/ralph-tmux/ralph.tmux/watch/plan"
)

func TestOverlapTellsWhetherTwoTasksTouchesMeet(t *testing.T) {
	for _, c := range []struct {
		a, b []string
		want bool
	}{
		{nil, []string{"a.go"}, false},
		{[]string{"a.go"}, []string{"a.go"}, true},
		{[]string{"a.go"}, []string{"b.go"}, false},
		{[]string{"cmd/*.go"}, []string{"cmd/run.go"}, true},
		{[]string{"cmd/*.go"}, []string{"watch/run.go"}, false},
		{[]string{"docs/**"}, []string{"docs/guide/work.md"}, true},
		{[]string{"docs/**"}, []string{"README.md"}, false},
		{[]string{"**/*.md"}, []string{"watch/x.go"}, true}, // ** meets any path: kept apart to be safe
		{[]string{"cmd/*.go"}, []string{"cmd/sub/x.go"}, false},
		{[]string{"*.go"}, []string{"*_test.go"}, true},
		{[]string{"a.go", "b.go"}, []string{"c.go", "./b.go"}, true},
	} {
		if got := Overlap(c.a, c.b); got != c.want || Overlap(c.b, c.a) != c.want {
			t.Errorf("Overlap(%q, %q) = %v, want %v both ways", c.a, c.b, got, c.want)
		}
	}
}

func TestNextTakesTheFirstTaskNobodyHoldsWhoseTouchesAreFree(t *testing.T) {
	p, err := plan.Parse("PLAN.md", []byte("- [ ] One\n  touches: a.go\n- [ ] Two\n  touches: a.go\n- [ ] Three\n- [x] Four\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		states []string // of tasks 1-4
		want   string
	}{
		{"all open", []string{Open, Open, Open, Open}, "1"},
		{"one held: two touches its file", []string{Working, Open, Open, Open}, "3"},
		{"one queued still holds its files", []string{Queued, Open, Open, Open}, "3"},
		{"one landed frees them", []string{Landed, Open, Working, Open}, "2"},
		{"none left", []string{Landed, NeedsReview, Working, Landed}, ""},
		{"skipped is not taken again", []string{Skipped, Landed, Landed, Landed}, ""},
	} {
		s := &State{}
		s.Sync(p)
		for i, st := range c.states {
			s.Tasks[i].State = st
		}
		got := ""
		if pt := s.Next(p); pt != nil {
			got = pt.ID
		}
		if got != c.want {
			t.Errorf("%s: Next = %q, want %q", c.name, got, c.want)
		}
	}
}

func TestSyncCountsATaskTheFansBranchHasDoneAsLanded(t *testing.T) {
	p, _ := plan.Parse("PLAN.md", []byte("- [ ] One\n- [x] Two\n"))
	s := &State{}
	s.Sync(p)
	if s.Tasks[0].State != Open || s.Tasks[1].State != Landed {
		t.Errorf("states %+v", s.Tasks)
	}
}

func TestNextWaitsForADependencyToLandNotForItsTick(t *testing.T) {
	p, err := plan.Parse("prd.json", []byte(`{"userStories": [{"id": "A", "passes": false}, {"id": "B", "passes": false, "dependsOn": ["A"]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	s := &State{}
	s.Sync(p)
	s.Tasks[0].State = Queued
	if pt := s.Next(p); pt != nil {
		t.Errorf("B started before A landed: %s", pt.ID)
	}
	s.Tasks[0].State = Landed
	if pt := s.Next(p); pt == nil || pt.ID != "B" {
		t.Errorf("B did not start once A landed: %v", pt)
	}
}

func TestLineShowsTheFanAtAGlance(t *testing.T) {
	for _, c := range []struct {
		s    *State
		want string
	}{
		{&State{Tasks: []Task{{State: Working}, {State: Working}, {State: Queued}, {State: Landed}, {State: Open}}, Queue: []string{"3"}}, "⟳ 2 loops · 1/5 landed"},
		{&State{Tasks: []Task{{State: Working}, {State: Open}, {State: Open}, {State: Open}, {State: Open}, {State: Open}, {State: Open}, {State: Open}}}, "⟳ 1 loop · 0/8 landed"},
		{&State{Tasks: []Task{{State: Landed}}, Ended: true}, "✓ 1/1 landed"},
		{&State{Tasks: []Task{{State: Landed}, {State: NeedsReview}, {State: Skipped}}, Ended: true}, "■ 1/3 landed · 1 review"},
	} {
		if got := c.s.Line(); got != c.want {
			t.Errorf("Line = %q, want %q", got, c.want)
		}
		if n := len([]rune(c.s.Line())); n > 24 { // the status line's cut (ralph.tmux's @ralph-status-format)
			t.Errorf("Line %q is %d cells, beyond the 24 an entry shows", c.s.Line(), n)
		}
	}
	big := &State{Tasks: make([]Task, 99)} // nine loops on a plan of 99: still whole
	for i := range big.Tasks {
		big.Tasks[i].State = map[bool]string{true: Working, false: Landed}[i < 9]
	}
	if got := big.Line(); len([]rune(got)) > 24 {
		t.Errorf("Line of nine loops on 99 tasks %q is cut", got)
	}
}
