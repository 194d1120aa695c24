package plan

import (
	"strings"
	"testing"
)

func TestKeepIDsFollowsATaskByItsTitleWhenItsPlaceMoves(t *testing.T) {
	same := func(s string) string { return s }
	known := []Known{{"1", "Add the parser"}, {"2", "Add the command"}, {"T9", "Write the docs"}}
	for _, c := range []struct {
		name, plan string
		want       string // id:title, …
	}{
		{"unchanged", "- [ ] Add the parser\n- [ ] Add the command\n- [ ] T9: Write the docs\n",
			"1:Add the parser 2:Add the command T9:Write the docs"},
		{"a task inserted above", "- [ ] Set up\n- [x] Add the parser\n- [ ] Add the command\n- [ ] T9: Write the docs\n",
			"3:Set up 1:Add the parser 2:Add the command T9:Write the docs"},
		{"a task removed", "- [ ] Add the command\n- [ ] T9: Write the docs\n",
			"2:Add the command T9:Write the docs"},
		{"a title edited keeps its place if free", "- [x] Add the parser (done)\n- [ ] Add the command\n",
			"1:Add the parser (done) 2:Add the command"},
		{"two tasks of one title", "- [ ] Add the command\n- [ ] Add the command\n",
			"2:Add the command 3:Add the command"},
		{"inserted above and its title edited: nothing tells them apart", "- [ ] Set up\n- [x] Add the parser (done)\n- [ ] Add the command\n",
			"1:Set up 3:Add the parser (done) 2:Add the command"},
		{"appended at the end", "- [ ] Add the parser\n- [ ] Add the command\n- [ ] T9: Write the docs\n- [ ] More\n",
			"1:Add the parser 2:Add the command T9:Write the docs 4:More"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, err := Parse("PLAN.md", []byte(c.plan))
			if err != nil {
				t.Fatal(err)
			}
			p.KeepIDs(known, same)
			var got []string
			for _, task := range p.Tasks {
				got = append(got, task.ID+":"+task.Title)
			}
			if strings.Join(got, " ") != c.want {
				t.Errorf("ids = %q, want %q", strings.Join(got, " "), c.want)
			}
		})
	}
}
