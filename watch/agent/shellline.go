package agent

import (
	"fmt"
	"strings"
)

// ExecLine has sh replace itself with a one-line command when it is a simple
// one (after its VAR=value words: sh passes those on), so the agent is the
// pane's process and tmux names the window after it, not "sh". Any other
// line is returned as written.
func ExecLine(line string) string {
	words, why := splitLine(line)
	if why != "" || len(words) == 0 {
		return line
	}
	start := 0 // where the program word begins
	for _, w := range words {
		if !isAssignment(w.text) {
			break
		}
		start = w.end
	}
	if start == len(line) {
		return line // assignments only
	}
	rest := strings.TrimLeft(line[start:], " \t")
	if first, _, _ := strings.Cut(rest, " "); first == "exec" || first == "!" {
		return line
	}
	if start == 0 {
		return "exec " + rest
	}
	return line[:start] + " exec " + rest
}

// lineWord is a word of a shell line: its value and where it ends.
type lineWord struct {
	text string
	end  int
}

// splitLine splits a one-line sh command into words as sh would. It also
// says what makes the line more than a simple command (an operator, an
// expansion, a redirection, a pattern, a comment), where inserting words
// after one of them would not be safe; the words are then only a guess.
func splitLine(line string) ([]lineWord, string) {
	var words []lineWord
	var b strings.Builder
	why := ""
	refuse := func(what string) {
		if why == "" {
			why = what
		}
	}
	in := false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == ' ' || c == '\t':
			if in {
				words = append(words, lineWord{b.String(), i})
				b.Reset()
				in = false
			}
			continue
		case c == '\'':
			j := strings.IndexByte(line[i+1:], '\'')
			if j < 0 {
				refuse("has a quote that is not closed")
				j = len(line) - i - 1
			}
			b.WriteString(line[i+1 : i+1+j])
			i += j + 1
		case c == '"':
			i++
			for ; i < len(line) && line[i] != '"'; i++ {
				switch d := line[i]; {
				case d == '\\' && i+1 < len(line) && strings.IndexByte("\"\\$`", line[i+1]) >= 0:
					i++
					b.WriteByte(line[i])
				case d == '\\' && i+1 < len(line) && line[i+1] == '\n':
					refuse("continues a line")
					i++
				case d == '$' || d == '`':
					refuse(fmt.Sprintf("uses %q inside quotes", d))
					b.WriteByte(d)
				default:
					b.WriteByte(d)
				}
			}
			if i >= len(line) {
				refuse("has a quote that is not closed")
			}
		case c == '\\':
			if i+1 >= len(line) || line[i+1] == '\n' {
				refuse("ends a line with a backslash")
			} else {
				b.WriteByte(line[i+1])
			}
			i++
		case c == '#' && !in:
			refuse("has a comment")
			b.WriteByte(c)
		case strings.IndexByte(";|&<>()$`*?[{}\n\r", c) >= 0:
			refuse(fmt.Sprintf("uses %q", c))
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
		in = true
	}
	if in {
		words = append(words, lineWord{b.String(), len(line)})
	}
	return words, why
}
