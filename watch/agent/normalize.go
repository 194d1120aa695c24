package agent

import (
	"bytes"
	"unicode/utf8"

	"github.com/acarl005/stripansi"
)

// markerPrefix starts the OSC payload the pane wrapper prints when the agent exits.
const markerPrefix = "7777;ralph-"

// maxPending bounds how much of an unterminated escape sequence is held back.
const maxPending = 64 << 10

// Normalizer turns a pane's raw output stream into plain text, chunk by chunk.
// It removes escape sequences (CSI, OSC, DCS and the other strings), turns
// cursor moves to another row into line breaks, leaves 8-bit CSI to stripansi,
// and holds back a sequence or rune split across chunks until the rest arrives.
type Normalizer struct {
	pending []byte
	afterCR bool // the last chunk ended in CR, already a line break
}

// Write normalizes the next chunk of output. It returns the plain text and the
// events seen: the payloads of ralph markers (OSC 7777) without the prefix,
// and PasteOn.
func (n *Normalizer) Write(p []byte) (text []byte, markers []string) {
	buf := append(n.pending, p...)
	n.pending = nil
	var pre []byte
	i := 0
	for i < len(buf) {
		c := buf[i]
		if c != 0x1b {
			i++
			continue
		}
		end, complete := scanEscape(buf, i)
		if !complete {
			if len(buf)-i <= maxPending {
				n.pending = append([]byte(nil), buf[i:]...)
				buf = buf[:i]
				break
			}
			end = len(buf)
		}
		pre = append(pre, buf[:i]...)
		seq := buf[i:end]
		// Every sequence found here is dropped whole: stripansi's pattern, run
		// over text, can run past a sequence's end and eat what follows.
		switch {
		case len(seq) > 1 && isStringIntroducer(seq[1]):
			if payload, ok := oscPayload(seq); ok && bytes.HasPrefix(payload, []byte(markerPrefix)) {
				markers = append(markers, string(payload[len(markerPrefix):]))
			}
		case len(seq) > 2 && seq[1] == '[' && bytes.IndexByte([]byte("HfABdEF"), seq[len(seq)-1]) >= 0:
			pre = append(pre, '\n')
		case enablesBracketedPaste(seq):
			markers = append(markers, PasteOn)
		case len(seq) == 2 && bytes.IndexByte([]byte("DEM"), seq[1]) >= 0:
			pre = append(pre, '\n')
		}
		buf = buf[end:]
		i = 0
	}
	// Hold back a rune cut in half at the end of the chunk.
	if n.pending == nil {
		if k := incompleteRuneTail(buf); k > 0 {
			n.pending = append([]byte(nil), buf[len(buf)-k:]...)
			buf = buf[:len(buf)-k]
		}
	}
	pre = append(pre, buf...)
	// What is left for stripansi: 8-bit CSI (U+009B), which the scan above does not parse.
	if bytes.Contains(pre, []byte("\u009b")) {
		pre = []byte(stripansi.Strip(string(pre)))
	}
	if n.afterCR && len(pre) > 0 && pre[0] == '\n' {
		pre = pre[1:]
	}
	if len(pre) > 0 {
		n.afterCR = pre[len(pre)-1] == '\r'
	}
	return cleanControls(pre), markers
}

// PasteOn is the event Write reports when the application turns on
// bracketed paste: a TUI that does so is reading its input box.
const PasteOn = "paste-on"

// enablesBracketedPaste reports a private mode set (CSI ? … h) naming mode 2004.
func enablesBracketedPaste(seq []byte) bool {
	if len(seq) < 5 || seq[1] != '[' || seq[2] != '?' || seq[len(seq)-1] != 'h' {
		return false
	}
	for _, p := range bytes.Split(seq[3:len(seq)-1], []byte(";")) {
		if string(p) == "2004" {
			return true
		}
	}
	return false
}

// Normalize is Write and end of stream for a whole text such as a capture.
func Normalize(s string) string {
	var n Normalizer
	text, _ := n.Write([]byte(s))
	return string(text)
}

// scanEscape finds the end of the escape sequence at buf[i] (an ESC byte).
func scanEscape(buf []byte, i int) (end int, complete bool) {
	if i+1 >= len(buf) {
		return len(buf), false
	}
	switch b := buf[i+1]; {
	case b == '[':
		for j := i + 2; j < len(buf); j++ {
			c := buf[j]
			switch {
			case c >= 0x30 && c <= 0x3f, c >= 0x20 && c <= 0x2f:
			case c >= 0x40 && c <= 0x7e:
				return j + 1, true
			default: // malformed: end before the stray byte
				return j, true
			}
		}
		return len(buf), false
	case isStringIntroducer(b):
		for j := i + 2; j < len(buf); j++ {
			switch buf[j] {
			case 0x07:
				return j + 1, true
			case 0x1b:
				if j+1 >= len(buf) {
					return len(buf), false
				}
				if buf[j+1] == '\\' {
					return j + 2, true
				}
				return j, true // unterminated string cut by a new sequence
			}
		}
		return len(buf), false
	case b >= 0x20 && b <= 0x2f: // ESC ( B and friends: one more byte
		if i+2 >= len(buf) {
			return len(buf), false
		}
		if c := buf[i+2]; c < 0x30 || c > 0x7e { // malformed: keep what follows
			return i + 2, true
		}
		return i + 3, true
	case b < 0x20 || b >= 0x7f: // a lone ESC: drop it, keep what follows
		return i + 1, true
	default:
		return i + 2, true
	}
}

// isStringIntroducer reports OSC, DCS, SOS, PM and APC, which run to a terminator.
func isStringIntroducer(b byte) bool {
	return b == ']' || b == 'P' || b == 'X' || b == '^' || b == '_'
}

// oscPayload returns the text of an OSC sequence without introducer and terminator.
func oscPayload(seq []byte) ([]byte, bool) {
	if len(seq) < 3 || seq[1] != ']' {
		return nil, false
	}
	p := seq[2:]
	switch {
	case bytes.HasSuffix(p, []byte{0x1b, '\\'}):
		p = p[:len(p)-2]
	case bytes.HasSuffix(p, []byte{0x07}):
		p = p[:len(p)-1]
	}
	return p, true
}

// incompleteRuneTail returns how many bytes at the end of b start a rune that is not finished.
func incompleteRuneTail(b []byte) int {
	for k := 1; k <= 3 && k <= len(b); k++ {
		c := b[len(b)-k]
		if c < 0x80 {
			return 0
		}
		if utf8.RuneStart(c) {
			if utf8.FullRune(b[len(b)-k:]) {
				return 0
			}
			return k
		}
	}
	return 0
}

// cleanControls maps CR and CRLF to LF and drops the other control bytes but tab.
func cleanControls(b []byte) []byte {
	out := b[:0]
	for i := 0; i < len(b); i++ {
		switch c := b[i]; {
		case c == '\r':
			if i+1 < len(b) && b[i+1] == '\n' {
				continue
			}
			out = append(out, '\n')
		case c == '\n', c == '\t':
			out = append(out, c)
		case c < 0x20, c == 0x7f:
		default:
			out = append(out, c)
		}
	}
	return out
}
