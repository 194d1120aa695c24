package plan

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// The pieces of Markdown line syntax the parser tells apart, each on one
// line's text (without its line ending).

// indentOf is a line's indentation in columns (a tab to the next multiple
// of 4) and in bytes.
func indentOf(s string) (width, n int) {
	for ; n < len(s); n++ {
		switch s[n] {
		case ' ':
			width++
		case '\t':
			width += 4 - width%4
		default:
			return width, n
		}
	}
	return width, n
}

// dedent takes up to width columns of indentation off s.
func dedent(s string, width int) string {
	w, i := 0, 0
	for ; i < len(s) && w < width; i++ {
		switch s[i] {
		case ' ':
			w++
		case '\t':
			w += 4 - w%4
		default:
			return s[i:]
		}
	}
	return s[i:]
}

// opensFence is the marker of a fence a line opens: three or more backticks
// (no backtick after them) or tildes.
func opensFence(rest string) (string, bool) {
	if len(rest) < 3 || (rest[0] != '`' && rest[0] != '~') {
		return "", false
	}
	n := 0
	for n < len(rest) && rest[n] == rest[0] {
		n++
	}
	if n < 3 || (rest[0] == '`' && strings.Contains(rest[n:], "`")) {
		return "", false
	}
	return rest[:n], true
}

// closesFence is true for a line of the fence's character, at least as many,
// and nothing else.
func closesFence(rest, fence string) bool {
	t := strings.TrimRight(rest, " \t")
	return len(t) >= len(fence) && strings.Trim(t, fence[:1]) == ""
}

// atxHeading reads "## Title ##".
func atxHeading(rest string) (level int, title string, ok bool) {
	for level < len(rest) && rest[level] == '#' {
		level++
	}
	if level == 0 || level > 6 || (level < len(rest) && rest[level] != ' ' && rest[level] != '\t') {
		return 0, "", false
	}
	title = strings.TrimSpace(rest[level:])
	if t := strings.TrimRight(title, "#"); t == "" || strings.HasSuffix(t, " ") || strings.HasSuffix(t, "\t") {
		title = strings.TrimSpace(t)
	}
	return level, title, true
}

// isSetextUnderline is "===" or "---" under a paragraph line.
func isSetextUnderline(rest string) bool {
	t := strings.TrimRight(rest, " \t")
	return t != "" && (strings.Trim(t, "=") == "" || strings.Trim(t, "-") == "")
}

var delimiterRow = regexp.MustCompile(`^\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)+\|?\s*$`)

// isDelimiterRow is a table's "|---|:--:|" row.
func isDelimiterRow(rest string) bool {
	return strings.Contains(rest, "|") && strings.Contains(rest, "-") && delimiterRow.MatchString(rest)
}

// listMarker is the length of a list item's marker ("-", "*", "+", "1.",
// "2)") when the line is one.
func listMarker(rest string) (int, bool) {
	if isThematicBreak(rest) {
		return 0, false
	}
	n := 0
	switch {
	case rest != "" && strings.IndexByte("-*+", rest[0]) >= 0:
		n = 1
	default:
		for n < len(rest) && n < 9 && rest[n] >= '0' && rest[n] <= '9' {
			n++
		}
		if n == 0 || n >= len(rest) || (rest[n] != '.' && rest[n] != ')') {
			return 0, false
		}
		n++
	}
	if n < len(rest) && rest[n] != ' ' && rest[n] != '\t' {
		return 0, false
	}
	return n, true
}

// isThematicBreak is "---", "* * *" or "___".
func isThematicBreak(rest string) bool {
	if rest == "" || strings.IndexByte("-*_", rest[0]) < 0 {
		return false
	}
	n := 0
	for i := 0; i < len(rest); i++ {
		switch rest[i] {
		case rest[0]:
			n++
		case ' ', '\t':
		default:
			return false
		}
	}
	return n >= 3
}

// box reads the box an item's text starts with: "[ ]", "[x]", "[X]" or
// "[/]", followed by a space or nothing. A date "[2026-11-27]" or a link
// "[text](url)" is no box.
func box(content string) (byte, bool) {
	if len(content) < 3 || content[0] != '[' || content[2] != ']' || strings.IndexByte(" xX/", content[1]) < 0 {
		return 0, false
	}
	return content[1], len(content) == 3 || content[3] == ' ' || content[3] == '\t'
}

// strangeBox is a one-character box the loop does not read ("[-]", "[~]",
// "[?]"), for saying so; "" for anything else.
func strangeBox(content string) string {
	if len(content) < 3 || content[0] != '[' || content[2] != ']' || (len(content) > 3 && content[3] != ' ' && content[3] != '\t') {
		return ""
	}
	if c := content[1]; strings.IndexByte("-~?!*>+.", c) >= 0 {
		return content[:3]
	}
	return ""
}

// isOptionalBox is true for "[ ]*", a box Kiro's plans mark optional.
func isOptionalBox(content string) bool {
	return len(content) >= 4 && content[3] == '*' && content[0] == '[' && content[2] == ']' && strings.IndexByte(" xX/", content[1]) >= 0
}

// hasBox is true for a line with a box anywhere, as words: what looked like
// a task in code, a quote, a table or a comment.
func hasBox(s string) bool {
	for i := strings.IndexByte(s, '['); i >= 0 && i+2 < len(s); {
		if s[i+2] == ']' && strings.IndexByte(" xX/", s[i+1]) >= 0 &&
			(i == 0 || strings.IndexByte(" \t|>-*+(", s[i-1]) >= 0) &&
			(i+3 == len(s) || strings.IndexByte(" \t|", s[i+3]) >= 0) {
			return true
		}
		j := strings.IndexByte(s[i+1:], '[')
		if j < 0 {
			return false
		}
		i += 1 + j
	}
	return false
}

// withoutCode is s with its code spans (`<!--`) blanked out, byte for byte.
func withoutCode(s string) string {
	if !strings.Contains(s, "`") {
		return s
	}
	b := []byte(s)
	for i := 0; i < len(b); {
		if b[i] != '`' {
			i++
			continue
		}
		n := 0
		for i+n < len(b) && b[i+n] == '`' {
			n++
		}
		end := strings.Index(s[i+n:], s[i:i+n])
		if end < 0 {
			i += n
			continue
		}
		for j := i; j < i+n+end+n; j++ {
			b[j] = ' '
		}
		i += n + end + n
	}
	return string(b)
}

// An explicit id: "US-001", "T3", "1.2", "3:" (a number alone only before a colon).
var explicitIDRe = regexp.MustCompile(`^(\*\*)?([A-Z][A-Za-z0-9]*-[0-9]+(\.[0-9]+)*|[A-Z]{1,4}[0-9]+(\.[0-9]+)*|[0-9]+(\.[0-9]+)+|[0-9]+)(\*\*)?(:|\.?[ \t]|\.?$)`)

// wordWithDigit is an id without a dash that may be a word ("HTTP2 support"):
// an id only before a colon.
var wordWithDigit = regexp.MustCompile(`^[A-Z]{2,}[0-9]+$`)

// explicitID is the id a task's text starts with, and the text after it.
func explicitID(title string) (id, rest string) {
	sm := explicitIDRe.FindStringSubmatch(title)
	if sm == nil {
		return "", title
	}
	if number := !strings.ContainsAny(sm[2], ".-ABCDEFGHIJKLMNOPQRSTUVWXYZ"); (number || wordWithDigit.MatchString(sm[2])) && sm[7] != ":" {
		return "", title
	}
	rest = strings.TrimSpace(title[len(sm[0]):])
	rest = strings.TrimSpace(strings.TrimPrefix(rest, "**"))
	if rest == "" {
		rest = title
	}
	return sm[2], rest
}

// issueRefRe is a GitHub issue's number at the start of a task's text: "#12 title", "#12: title".
var issueRefRe = regexp.MustCompile(`^#([0-9]{1,9})(:|[ \t]|$)`)

// issueRef is the number of the GitHub issue a task's text starts with,
// and the text after it (all of it when nothing follows the number).
func issueRef(title string) (n int, rest string, ok bool) {
	sm := issueRefRe.FindStringSubmatch(title)
	if sm == nil {
		return 0, title, false
	}
	if n, _ = strconv.Atoi(sm[1]); n <= 0 {
		return 0, title, false
	}
	if rest = strings.TrimSpace(title[len(sm[0]):]); rest == "" {
		rest = title
	}
	return n, rest, true
}

// IssueID is the task id of GitHub issue n: gh-12.
func IssueID(n int) string { return "gh-" + strconv.Itoa(n) }

// IssueOf is the GitHub issue a task id names (gh-12: 12); 0 when none.
func IssueOf(id string) int {
	rest, ok := strings.CutPrefix(id, "gh-")
	if !ok || rest == "" || rest[0] == '0' || len(rest) > 9 {
		return 0
	}
	n, err := strconv.Atoi(rest)
	if err != nil || n <= 0 || strconv.Itoa(n) != rest {
		return 0
	}
	return n
}

type sectionKindT int

const (
	kindTasks    sectionKindT = iota
	kindNever                 // Optional, Future, Notes, …: boxes here are not tasks
	kindCriteria              // Acceptance criteria, …: a task's criteria
)

var (
	neverNames    = []string{"optional", "future", "later", "ideas", "idea", "notes", "note", "out of scope", "non-goals", "non goals", "nice to have", "nice-to-have"}
	criteriaNames = []string{"done criteria", "acceptance criteria", "success criteria", "definition of done", "completion criteria", "exit criteria", "done when"}
)

// unemphasize takes Markdown's emphasis and code marks out of a title.
var unemphasize = strings.NewReplacer("*", "", "_", "", "`", "")

// sectionKind tells a heading's kind by its first words, any case:
// "Future work" is a never-task section, "Acceptance Criteria (US-1)" a
// criteria one.
func sectionKind(title string) sectionKindT {
	t := strings.ToLower(strings.Trim(unemphasize.Replace(title), " \t:"))
	t = strings.TrimLeft(t, "0123456789.) \t") // "5. Notes"
	t = strings.TrimLeftFunc(t, func(r rune) bool { return r > 0x7f || r == ' ' })
	for _, n := range criteriaNames {
		if startsWord(t, n) {
			return kindCriteria
		}
	}
	for _, n := range neverNames {
		if startsWord(t, n) {
			return kindNever
		}
	}
	return kindTasks
}

// startsWord is true when t starts with the words w, and a word ends there.
func startsWord(t, w string) bool {
	if !strings.HasPrefix(t, w) {
		return false
	}
	if len(t) == len(w) {
		return true
	}
	c := t[len(w)]
	return !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-')
}

// labelText is the text of a label line ("**Acceptance criteria:**",
// "Notes:", "*Future*"), "" when the line is no label.
func labelText(s string) string {
	t := strings.TrimSpace(s)
	bold := len(t) > 4 && (strings.HasPrefix(t, "**") && strings.HasSuffix(t, "**") || strings.HasPrefix(t, "__") && strings.HasSuffix(t, "__"))
	t = strings.TrimSpace(unemphasize.Replace(t))
	if len(t) > 60 || (!bold && !strings.HasSuffix(t, ":")) {
		return ""
	}
	return strings.TrimRight(t, ": ")
}

// labelWhy is why boxes under a label line are not tasks; "" for no such label.
func labelWhy(s string) string {
	if l := labelText(s); l != "" && sectionKind(l) != kindTasks {
		return fmt.Sprintf("under %q", l)
	}
	return ""
}

// isCriteriaLabel is true for "Acceptance criteria:" and the like.
func isCriteriaLabel(s string) bool {
	l := labelText(s)
	return l != "" && sectionKind(l) == kindCriteria
}
