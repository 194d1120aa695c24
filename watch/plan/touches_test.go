package plan

import (
	"reflect"
	"testing"
)

func TestTouchesIsReadFromAMarkdownLineAndAJSONField(t *testing.T) {
	md, err := Parse("PLAN.md", []byte("- [ ] Parser\n  touches: parse/*.go, `go.mod`\n- [ ] Docs\n  - Touches: docs/**\n- [ ] Free\n"))
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range [][]string{{"parse/*.go", "go.mod"}, {"docs/**"}, nil} {
		if got := md.Tasks[i].Touches; !reflect.DeepEqual(got, want) {
			t.Errorf("markdown task %d touches %q, want %q", i+1, got, want)
		}
	}
	js, err := Parse("prd.json", []byte(`{"userStories": [{"id": "US-1", "title": "One", "passes": false, "touches": ["a/*.go"]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := js.Tasks[0].Touches; !reflect.DeepEqual(got, []string{"a/*.go"}) {
		t.Errorf("json story touches %q", got)
	}
	if _, err := Parse("prd.json", []byte(`{"userStories": [{"id": "US-1", "title": "One", "touches": "a"}]}`)); err == nil {
		t.Error("touches as a string was taken")
	}
}

func TestTickMarksOneTaskDoneAndKeepsEveryOtherByte(t *testing.T) {
	for _, c := range []struct{ name, in, want string }{
		{"PLAN.md", "- [ ] One\n- [ ] Two\n", "- [ ] One\n- [x] Two\n"},
		{"prd.json", `{"userStories": [{"id": "1", "passes": true}, {"id": "2", "passes": false}]}`, `{"userStories": [{"id": "1", "passes": true}, {"id": "2", "passes": true}]}`},
	} {
		p, err := Parse(c.name, []byte(c.in))
		if err != nil {
			t.Fatal(err)
		}
		got, err := Tick([]byte(c.in), p, "2")
		if err != nil || string(got) != c.want {
			t.Errorf("%s: Tick = %q, %v; want %q", c.name, got, err, c.want)
		}
	}
}
