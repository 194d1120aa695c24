package plan

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

// A Markdown plan's tasks are its top-level boxes: "- [ ]" open, "- [x]" done,
// "- [/]" in progress (also "*", "+" and "1." markers). A box nested under a
// task is part of that task's text. Boxes in code, HTML comments, tables,
// block quotes and never-task sections (Optional, Future, Notes, …) are not
// tasks; criteria (a sub-section or a labelled line) are their task's.

// mdParser walks a Markdown plan line by line.
type mdParser struct {
	plan  *Plan
	texts [][]string // each task's lines
	inds  []int      // each task's indentation, taken off its lines

	fence      string // the open fence's marker ("```", "~~~~"); "" when none
	comment    bool   // inside a multi-line HTML comment
	blockOwner int    // the task a fence or comment belongs to; -1: none
	prevBlank  bool   // the previous line was blank (or there was none)
	prevCode   bool   // the previous line was indented code
	para       string // the previous line, when it was a paragraph a setext underline makes a heading
	paraOwner  int    // the task whose text that line went into; -1: none
	inList     bool   // inside a list, where indentation is not code
	inTable    bool   // after a table's delimiter row, until a blank line

	section     int // level of the latest heading; 0 before any
	sectionLine int // line of the latest heading
	zone        *zone

	lineAt, lineEnd int // byte offsets of the line being read and after it (its line ending included)

	cur       int  // the task whose lines these are; -1: none
	critAt    int  // indentation of a criteria label inside the current task; -1: none
	critItem  bool // that label is a list item ("- Done when:")
	critLazy  bool // that label is a lazy line at the task's own level: the items after it, up to a blank line, are criteria
	last      int  // the latest task, for a criteria sub-section after it; -1: none
	lastLevel int  // level of the section the latest task is in
	lastLine  int  // line of that section's heading
	lastCount int  // tasks in that section
}

// zone is an area outside tasks whose boxes are not tasks: a never-task
// section, a criteria section, or the list after a label like "Notes:".
type zone struct {
	level int    // the heading's level; 0: a label line, until the next paragraph
	item  int    // a label that is a list item: its indentation, for its nested items only; -1: none
	why   string // why a box here is ignored
	task  int    // the task whose criteria these are; -1: none
}

func parseMarkdown(data []byte) (*Plan, error) {
	p := readMarkdown(data)
	if len(p.Tasks) == 0 {
		return nil, noTasks(data, p.Ignored)
	}
	return p, nil
}

// readMarkdown reads a Markdown plan, which may have no task.
func readMarkdown(data []byte) *Plan {
	m := &mdParser{plan: &Plan{Format: FormatMarkdown}, blockOwner: -1, paraOwner: -1, prevBlank: true, cur: -1, critAt: -1, last: -1}
	start := 0
	if bytes.HasPrefix(data, []byte(bom)) {
		start = len(bom)
	}
	for num := 1; start < len(data); num++ {
		end, next := len(data), len(data)
		if i := bytes.IndexByte(data[start:], '\n'); i >= 0 {
			end, next = start+i, start+i+1
		}
		m.lineAt, m.lineEnd = start, next
		m.line(strings.TrimSuffix(string(data[start:end]), "\r"), start, num)
		start = next
	}
	m.endTask()
	for i := range m.plan.Tasks {
		m.plan.Tasks[i].Text = joinText(m.texts[i], m.inds[i])
		m.plan.Tasks[i].Touches = touchesLine(m.plan.Tasks[i].Text)
	}
	return m.plan
}

// noTasks says why a Markdown file has no tasks, at the first box it ignored.
func noTasks(data []byte, ignored []Ignored) error {
	if len(bytes.TrimSpace(data)) == 0 {
		return &ParseError{Line: 1, Why: "no tasks: the file is empty"}
	}
	if len(ignored) == 0 {
		return &ParseError{Line: 1, Why: `no tasks: no "- [ ]" item in the file`}
	}
	return &ParseError{Line: ignored[0].Line, Why: fmt.Sprintf("no tasks: every box is ignored (%d, the first %s)", len(ignored), ignored[0].Why)}
}

// line takes one line, without its line ending; off is its byte offset.
func (m *mdParser) line(s string, off, num int) {
	width, n := indentOf(s)
	rest := s[n:]
	if m.fence != "" {
		if closesFence(rest, m.fence) {
			m.fence = ""
		} else {
			m.ignoreBox(s, num, "in a fenced code block")
		}
		m.addTo(m.blockOwner, s)
		return
	}
	if m.comment {
		m.comment = !strings.Contains(s, "-->")
		m.ignoreBox(s, num, "in an HTML comment")
		m.addTo(m.blockOwner, s)
		return
	}
	para := m.para
	m.para = ""
	if strings.TrimSpace(s) == "" {
		m.prevBlank, m.prevCode, m.inTable = true, false, false
		if m.cur >= 0 {
			m.addTo(m.cur, s)
		} else if m.zone != nil {
			m.addTo(m.zone.task, s)
		}
		return
	}
	blank := m.prevBlank
	m.prevBlank = false
	code := m.prevCode
	m.prevCode = false
	if fence, ok := opensFence(rest); ok && (width <= 3 || m.inList) {
		m.fence, m.blockOwner = fence, m.owner(width)
		m.addTo(m.blockOwner, s)
		return
	}
	if strings.HasPrefix(rest, "<!--") {
		m.blockOwner = m.owner(width)
		m.comment = !strings.Contains(rest[4:], "-->")
		m.ignoreBox(s, num, "in an HTML comment")
		m.addTo(m.blockOwner, s)
		return
	}
	if width <= 3 {
		if level, title, ok := atxHeading(rest); ok {
			m.heading(level, title, []string{s}, num)
			return
		}
		if para != "" && isSetextUnderline(rest) {
			level := 2
			if rest[0] == '=' {
				level = 1
			}
			if i := m.paraOwner; i >= 0 {
				m.texts[i] = m.texts[i][:len(m.texts[i])-1] // the title is the heading's now
			}
			m.heading(level, strings.TrimSpace(para), []string{para, s}, num)
			return
		}
	}
	if width <= 3 && isThematicBreak(rest) {
		m.endTask()
		m.inList = false
		if m.zone != nil && m.zone.level == 0 {
			m.zone = nil
		}
		return
	}
	if strings.HasPrefix(rest, ">") && width <= 3 {
		m.addTo(m.owner(width), s)
		m.ignoreBox(s, num, "in a block quote")
		return
	}
	if strings.HasPrefix(rest, "|") || isDelimiterRow(rest) || (m.inTable && strings.Contains(rest, "|")) {
		m.inTable = m.inTable || isDelimiterRow(rest)
		m.addTo(m.owner(width), s)
		m.ignoreBox(s, num, "in a table")
		return
	}
	if width >= 4 && !m.inList && (blank || code) {
		m.prevCode = true
		m.ignoreBox(s, num, "in an indented code block")
		return
	}
	if ml, ok := listMarker(rest); ok {
		content := strings.TrimLeft(rest[ml:], " \t")
		m.item(s, off+len(s)-len(content), width, content, blank, num)
	} else {
		m.paragraph(s, width, rest, blank, num)
	}
	if t := withoutCode(s); strings.Contains(t, "<!--") && !strings.Contains(t[strings.LastIndex(t, "<!--"):], "-->") {
		m.comment, m.blockOwner = true, m.cur // a comment that runs on past the line
	}
}

// owner is the task a line of this indentation belongs to, ending the
// current task when the line is not inside it; -1 when none.
func (m *mdParser) owner(width int) int {
	if m.cur >= 0 && width > m.inds[m.cur] {
		return m.cur
	}
	m.endTask()
	if m.zone != nil {
		return m.zone.task
	}
	return -1
}

// item takes a list item; content is its text after the marker, at byte
// offset at in the file.
func (m *mdParser) item(s string, at, width int, content string, blank bool, num int) {
	m.inList = true
	if m.cur >= 0 && (width > m.inds[m.cur] || (m.critLazy && !blank)) {
		m.addTo(m.cur, s)
		m.taskCriteria(width, content, true)
		return
	}
	m.endTask()
	if m.zone != nil && m.zone.item >= 0 && width <= m.zone.item {
		m.zone = nil // a sibling of the label's item
	}
	mark, isBox := box(content)
	if m.zone != nil {
		if m.zone.task >= 0 {
			m.addTo(m.zone.task, s)
			m.criterion(m.zone.task, content)
		} else if isBox {
			m.ignore(s, num, m.zone.why)
		}
		return
	}
	if !isBox {
		if isOptionalBox(content) {
			m.ignore(s, num, fmt.Sprintf("%q marks an optional task", content[:4]))
		} else if bad := strangeBox(content); bad != "" {
			m.ignore(s, num, fmt.Sprintf("%q is not a box the loop reads ([ ], [x], [/])", bad))
		}
		if why := labelWhy(content); why != "" {
			m.zone = &zone{why: why, item: width, task: -1}
		}
		return
	}
	title := content[3:]
	if i := strings.Index(withoutCode(title), "<!--"); i >= 0 {
		title = title[:i] // a comment is for the plan's reader
	}
	title = strings.TrimSpace(title)
	if title == "" {
		m.ignore(s, num, "an empty box, with no task")
		return
	}
	m.newTask(s, at+1, mark, width, title, num)
}

// paragraph takes a line that is no list item, heading, code, quote or table.
func (m *mdParser) paragraph(s string, width int, rest string, blank bool, num int) {
	if m.cur >= 0 && (width > m.inds[m.cur] || !blank) {
		m.addTo(m.cur, s)
		m.taskCriteria(width, rest, false)
		return
	}
	m.endTask()
	if width < 2 {
		m.inList = false
		if m.zone != nil && m.zone.level == 0 {
			m.zone = nil
		}
	}
	if width <= 3 && !m.inList {
		m.para, m.paraOwner = s, -1
	}
	if m.zone != nil {
		m.addTo(m.zone.task, s)
		m.paraOwner = m.zone.task
		return
	}
	if why := labelWhy(rest); why != "" {
		m.para = ""
		m.zone = &zone{why: why, item: -1, task: -1}
	}
}

// taskCriteria follows a criteria label inside the current task: the items
// under it are the task's criteria.
func (m *mdParser) taskCriteria(width int, content string, isItem bool) {
	if isCriteriaLabel(content) {
		m.critAt, m.critItem, m.critLazy = width, isItem, width <= m.inds[m.cur]
		return
	}
	if m.critAt < 0 {
		return
	}
	switch {
	case isItem && (width > m.critAt || (width == m.critAt && !m.critItem)):
		m.criterion(m.cur, content)
	case width <= m.critAt:
		m.critAt, m.critLazy = -1, false
	}
}

// criterion adds an item's text to task i's criteria.
func (m *mdParser) criterion(i int, content string) {
	if _, ok := box(content); ok {
		content = content[3:]
	}
	if c := strings.TrimSpace(content); c != "" {
		m.plan.Tasks[i].Criteria = append(m.plan.Tasks[i].Criteria, c)
	}
}

// heading ends the task and the zones it closes, and may open a zone.
func (m *mdParser) heading(level int, title string, lines []string, num int) {
	m.endTask()
	m.inList, m.inTable = false, false
	if m.zone != nil && (m.zone.level == 0 || level <= m.zone.level) {
		m.zone = nil
	}
	if m.last >= 0 && level <= m.lastLevel {
		m.last = -1
	}
	if m.zone != nil {
		m.addTo(m.zone.task, lines...)
		return
	}
	m.section, m.sectionLine = level, num
	switch kind := sectionKind(title); {
	case kind == kindCriteria && m.last >= 0 && level > m.lastLevel && m.lastCount == 1:
		m.zone = &zone{level: level, item: -1, task: m.last}
		if t := m.texts[m.last]; strings.TrimSpace(t[len(t)-1]) != "" {
			m.addTo(m.last, "")
		}
		m.addTo(m.last, lines...)
	case kind != kindTasks:
		m.zone = &zone{level: level, why: fmt.Sprintf("under %q", title), item: -1, task: -1}
	}
}

// newTask starts a task at a box whose mark is at byte offset at.
func (m *mdParser) newTask(s string, at int, mark byte, width int, title string, num int) {
	state := Open
	switch mark {
	case 'x', 'X':
		state = Done
	case '/':
		state = InProgress
	}
	id, rest := explicitID(title)
	issue, issueRest, ok := issueRef(title)
	if ok {
		id, rest = IssueID(issue), issueRest
	}
	ordinal := id == ""
	if ordinal {
		id = strconv.Itoa(len(m.plan.Tasks) + 1)
	}
	m.plan.Tasks = append(m.plan.Tasks, Task{ID: id, Title: rest, State: state, Line: num, Issue: issue, mark: at, ordinal: ordinal,
		lineAt: m.lineAt, end: m.lineEnd})
	m.texts = append(m.texts, []string{s})
	m.inds = append(m.inds, width)
	m.cur, m.critAt = len(m.plan.Tasks)-1, -1
	if m.last >= 0 && m.lastLine == m.sectionLine {
		m.lastCount++
	} else {
		m.lastCount = 1
	}
	m.last, m.lastLevel, m.lastLine = m.cur, m.section, m.sectionLine
}

func (m *mdParser) endTask() { m.cur, m.critAt, m.critLazy = -1, -1, false }

// addTo adds lines to task i's text; nothing when i < 0.
func (m *mdParser) addTo(i int, lines ...string) {
	if i >= 0 {
		m.texts[i] = append(m.texts[i], lines...)
		if len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) != "" {
			m.plan.Tasks[i].end = m.lineEnd
		}
	}
}

// ignoreBox notes the line when it holds something that looks like a box.
func (m *mdParser) ignoreBox(s string, num int, why string) {
	if hasBox(s) {
		m.ignore(s, num, why)
	}
}

func (m *mdParser) ignore(s string, num int, why string) {
	m.plan.Ignored = append(m.plan.Ignored, Ignored{Line: num, Text: strings.TrimSpace(s), Why: why})
}

// joinText is a task's lines without the trailing blank ones, its own
// indentation taken off each.
func joinText(ls []string, width int) string {
	for len(ls) > 0 && strings.TrimSpace(ls[len(ls)-1]) == "" {
		ls = ls[:len(ls)-1]
	}
	var b strings.Builder
	for i, l := range ls {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(dedent(l, width))
	}
	return b.String()
}
