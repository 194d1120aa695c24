package plan

import (
	"bytes"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// A GitHub issue becomes one task of a Markdown plan, "- [ ] #12 title"
// (id gh-12), the checklist of its body and the lines under its Acceptance
// heading the task's criteria. Writing issues into a plan changes only
// what it must: a closed issue's box ticked (one byte), the new issues'
// tasks inserted after the plan's last task; every other byte is kept.

// Issue is a GitHub issue as a plan takes it.
type Issue struct {
	Number   int
	Title    string
	Criteria []string // IssueCriteria of its body
	Closed   bool
}

// IssueEdit is what WriteIssues changed.
type IssueEdit struct {
	Added  []int // the issues appended as tasks, in order
	Ticked []int // the issues whose task was ticked, closed on GitHub
}

// Named is the issues the plan's tasks came from, each once, in number order.
func (p *Plan) Named() []int {
	seen := map[int]bool{}
	var out []int
	for _, t := range p.Tasks {
		if t.Issue > 0 && !seen[t.Issue] {
			seen[t.Issue] = true
			out = append(out, t.Issue)
		}
	}
	sort.Ints(out)
	return out
}

// ReadForIssues reads a plan that issues are to be written into: a
// Markdown plan, which may have no task yet (an empty or new file has
// none). A JSON plan is refused.
func ReadForIssues(name string, data []byte) (*Plan, error) {
	if looksJSON(data) {
		return nil, fmt.Errorf("%s is a JSON plan: issues are written into a Markdown plan (name another file)", name)
	}
	return readMarkdown(data), nil
}

// WriteIssues is the Markdown plan data with GitHub's issues in it: each
// task whose issue is closed ticked, and each open issue that no task
// names appended as a task after the plan's last task, in number order;
// every other byte kept. data empty: the plan starts with head. It reads
// the result back and refuses one in which the plan's own tasks read
// otherwise than before or a new task does not read as written.
func WriteIssues(data []byte, issues []Issue, head string) ([]byte, IssueEdit, error) {
	var edit IssueEdit
	p, err := ReadForIssues("the plan", data)
	if err != nil {
		return nil, edit, err
	}
	byNumber := make(map[int]Issue, len(issues))
	for _, is := range issues {
		byNumber[is.Number] = is
	}
	out := bytes.Clone(data)
	named := map[int]bool{}
	ticked := map[int]bool{}
	for _, t := range p.Tasks {
		if t.Issue == 0 {
			continue
		}
		named[t.Issue] = true
		if is, ok := byNumber[t.Issue]; ok && is.Closed && t.State != Done && t.mark >= 0 && t.mark < len(out) && (out[t.mark] == ' ' || out[t.mark] == '/') {
			out[t.mark] = 'x'
			if !ticked[t.Issue] {
				ticked[t.Issue] = true
				edit.Ticked = append(edit.Ticked, t.Issue)
			}
		}
	}
	sort.Ints(edit.Ticked)
	var added []Issue
	for _, is := range issues {
		if !is.Closed && is.Number > 0 && !named[is.Number] {
			named[is.Number] = true
			added = append(added, is)
		}
	}
	sort.Slice(added, func(i, j int) bool { return added[i].Number < added[j].Number })
	if len(added) == 0 {
		return out, edit, nil
	}
	before := readMarkdown(out)
	if len(out) == 0 {
		out = []byte(head)
	}
	for _, cand := range placements(out, before, added) {
		if fits(cand, before, added) {
			for _, is := range added {
				edit.Added = append(edit.Added, is.Number)
			}
			return cand, edit, nil
		}
	}
	return nil, IssueEdit{}, fmt.Errorf("the new issues' tasks would not read as tasks after the plan's last lines: add a heading for them at its end, then run again")
}

// placements are the plans with the new tasks in, the best first: right
// after the last task (at its indentation), the same after a blank line,
// then at the end under a heading of their own.
func placements(data []byte, p *Plan, added []Issue) [][]byte {
	var out [][]byte
	nl := "\n"
	if bytes.Contains(data, []byte("\r\n")) {
		nl = "\r\n" // the plan's own line ending
	}
	ended := data
	if len(ended) > 0 && ended[len(ended)-1] != '\n' {
		ended = append(bytes.Clone(ended), nl...)
	}
	if n := len(p.Tasks); n > 0 {
		last := p.Tasks[n-1]
		line := data[last.lineAt:]
		indent := string(line[:len(line)-len(bytes.TrimLeft(line, " \t"))])
		at := last.end
		for _, sep := range []string{"", "\n"} {
			sep = strings.ReplaceAll(sep, "\n", nl)
			pre := data[:at]
			if len(pre) > 0 && pre[len(pre)-1] != '\n' {
				sep = nl + sep
			}
			c := append(append(bytes.Clone(pre), sep...), issueTasks(added, indent, nl)...)
			out = append(out, append(c, data[at:]...))
		}
	} else {
		sep := ""
		if len(bytes.TrimSpace(ended)) > 0 && !bytes.HasSuffix(ended, []byte(nl+nl)) {
			sep = nl
		}
		out = append(out, append(append(bytes.Clone(ended), sep...), issueTasks(added, "", nl)...))
	}
	for _, h := range []string{"## Issues", "# Issues"} {
		out = append(out, append(append(bytes.Clone(ended), nl+h+nl+nl...), issueTasks(added, "", nl)...))
	}
	return out
}

// issueTasks is the new issues' tasks, as lines at indentation indent,
// each ending in nl.
func issueTasks(added []Issue, indent, nl string) string {
	var b strings.Builder
	for _, is := range added {
		fmt.Fprintf(&b, "%s- [ ] #%d %s%s", indent, is.Number, literal(is.Title), nl)
		if len(is.Criteria) > 0 {
			fmt.Fprintf(&b, "%s  Acceptance criteria:%s", indent, nl)
			for _, c := range is.Criteria {
				fmt.Fprintf(&b, "%s  - %s%s", indent, literal(c), nl)
			}
		}
	}
	return b.String()
}

// fits is true when the plan data reads as p's tasks as they were, then
// the added issues' tasks, open, with their criteria.
func fits(data []byte, p *Plan, added []Issue) bool {
	q := readMarkdown(data)
	if len(q.Tasks) != len(p.Tasks)+len(added) {
		return false
	}
	for i, t := range p.Tasks {
		u := q.Tasks[i]
		if u.ID != t.ID || u.Title != t.Title || u.State != t.State || u.Text != t.Text || u.Line != t.Line || strings.Join(u.Criteria, "\n") != strings.Join(t.Criteria, "\n") {
			return false
		}
	}
	for i, is := range added {
		u := q.Tasks[len(p.Tasks)+i]
		var want []string
		for _, c := range is.Criteria {
			want = append(want, literal(c))
		}
		if u.Issue != is.Number || u.ID != IssueID(is.Number) || u.State != Open || strings.Join(u.Criteria, "\n") != strings.Join(want, "\n") {
			return false
		}
	}
	return true
}

// literal is text from GitHub as one line of a plan that reads as it is:
// line breaks and other control characters become spaces, and a "<!--"
// outside code starts no comment ("<\!--" shows the same).
func literal(s string) string {
	s = strings.Map(func(r rune) rune {
		if r < ' ' || r == 0x7f {
			return ' '
		}
		return r
	}, s)
	if strings.Contains(withoutCode(s), "<!--") {
		s = strings.ReplaceAll(s, "<!--", `<\!--`)
	}
	return strings.TrimSpace(s)
}

// IssueCriteria is what an issue's body says must hold when it is done:
// its checklist's items, and the lines under a heading or label that
// starts with "Acceptance" (or another criteria name: "Definition of
// done", …), each once, without list markers and boxes. Code blocks and
// HTML comments (an issue template's hints) are left out.
func IssueCriteria(body string) []string {
	var out []string
	seen := map[string]bool{}
	add := func(c string) {
		c = literal(c)
		if _, ok := box(c); ok {
			c = strings.TrimSpace(c[3:])
		}
		if c != "" && !seen[c] && !isCriteriaLabel(c) {
			seen[c] = true
			out = append(out, c)
		}
	}
	fence, comment := "", false
	under := 0 // the Acceptance heading's level; 7: a label, up to the next heading; 0: none
	for _, s := range strings.Split(strings.ReplaceAll(body, "\r\n", "\n"), "\n") {
		_, n := indentOf(s)
		rest := strings.TrimRight(s[n:], " \t\r")
		switch {
		case fence != "":
			if closesFence(rest, fence) {
				fence = ""
			}
			continue
		case comment:
			comment = !strings.Contains(s, "-->")
			continue
		}
		if f, ok := opensFence(rest); ok {
			fence = f
			continue
		}
		if i := strings.Index(rest, "<!--"); i >= 0 {
			comment = !strings.Contains(rest[i:], "-->")
			if rest = strings.TrimSpace(rest[:i]); rest == "" {
				continue
			}
		}
		if level, title, ok := atxHeading(rest); ok {
			if isAcceptance(title) {
				under = level
			} else if level <= under {
				under = 0
			}
			continue
		}
		if l := labelText(rest); l != "" && isAcceptance(l) {
			under = 7
			continue
		}
		content, item := rest, false
		if ml, ok := listMarker(rest); ok {
			content, item = strings.TrimLeft(rest[ml:], " \t"), true
		}
		if _, isBox := box(content); item && isBox {
			add(content)
			continue
		}
		if under > 0 && content != "" && !isThematicBreak(rest) {
			add(content)
		}
	}
	return out
}

// isAcceptance is true for a heading or label that starts the criteria:
// "Acceptance", "Acceptance criteria", "Definition of done".
func isAcceptance(title string) bool {
	t := strings.ToLower(strings.Trim(unemphasize.Replace(title), " \t:"))
	return startsWord(t, "acceptance") || sectionKind(title) == kindCriteria
}

// issueWord is "#12" for messages.
func issueWord(n int) string { return "#" + strconv.Itoa(n) }

// IssueList is "#12, #14" for messages.
func IssueList(ns []int) string {
	words := make([]string, len(ns))
	for i, n := range ns {
		words[i] = issueWord(n)
	}
	return strings.Join(words, ", ")
}
