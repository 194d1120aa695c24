package demo

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"
)

const (
	pasteStart = "\x1b[200~"
	pasteEnd   = "\x1b[201~"
	promptMark = "❯ "
	maxShown   = 60 // runes of input shown on the prompt line
)

// chunk is one read from In, stamped with when it arrived.
type chunk struct {
	data []byte
	at   time.Time
	err  error
}

// escState is how far feed is into an escape sequence.
type escState int

const (
	escNone escState = iota
	escStart
	escCSI
	escSS3
)

// feed results
const (
	fedMore = iota
	fedSubmit
	fedInterrupt
)

// startReader reads In in the background, stamping each chunk with its arrival time.
func (a *Agent) startReader() {
	a.chunks = make(chan chunk, 1024)
	go func() {
		for {
			buf := make([]byte, 4096)
			n, err := a.In.Read(buf)
			if n > 0 {
				a.chunks <- chunk{data: buf[:n], at: time.Now()}
			}
			if err != nil {
				a.chunks <- chunk{err: err}
				return
			}
		}
	}()
}

// key waits for one key press, as a dialog does, and takes it; what was
// typed before it stays unread.
func (a *Agent) key(s *Step) (int, bool) {
	if len(a.pending) > 0 {
		a.pending = a.pending[1:]
		return 0, false
	}
	c := <-a.chunks
	if c.err != nil {
		a.chunks <- c
		return a.fail(s, c.err)
	}
	a.pending = c.data[1:]
	return 0, false
}

// read collects keyboard input until a non-empty submit.
func (a *Agent) read(s *Step) (int, bool) {
	if !a.promptShown {
		a.drawInput()
	}
	for {
		if len(a.pending) == 0 {
			c := <-a.chunks
			if c.err != nil {
				a.chunks <- c
				if c.err == io.EOF {
					c.err = errors.New("input closed")
				}
				return a.fail(s, c.err)
			}
			if c.at.Before(a.dropUntil) {
				continue
			}
			a.pending = c.data
		}
		switch a.feed() {
		case fedSubmit:
			a.last = a.input
			a.input = nil
			a.write("\r\x1b[2K")
			a.promptShown = false
			return 0, false
		case fedInterrupt:
			a.write("\r\x1b[2K")
			return 130, true
		}
		a.drawInput()
	}
}

// feed consumes pending bytes until they run out or the input is submitted or interrupted.
func (a *Agent) feed() int {
	for len(a.pending) > 0 {
		b := a.pending[0]
		a.pending = a.pending[1:]
		if a.inPaste {
			a.input = append(a.input, b)
			if bytes.HasSuffix(a.input[a.pasteAt:], []byte(pasteEnd)) {
				a.input = a.input[:len(a.input)-len(pasteEnd)]
				a.inPaste = false
			}
			continue
		}
		switch a.esc {
		case escStart:
			switch b {
			case '[':
				a.esc, a.csi = escCSI, a.csi[:0]
			case 'O':
				a.esc = escSS3
			case 0x1b:
			default:
				a.esc = escNone
			}
			continue
		case escCSI:
			a.csi = append(a.csi, b)
			if b >= 0x40 && b <= 0x7e {
				a.esc = escNone
				if "\x1b["+string(a.csi) == pasteStart {
					a.inPaste, a.pasteAt = true, len(a.input)
					a.pastes++
				}
			}
			continue
		case escSS3:
			a.esc = escNone
			continue
		}
		switch {
		case b == 0x1b:
			a.esc = escStart
		case b == '\r' || b == '\n':
			if len(a.input) > 0 {
				return fedSubmit
			}
		case b == 0x7f || b == 0x08:
			if len(a.input) > 0 {
				_, size := utf8.DecodeLastRune(a.input)
				a.input = a.input[:len(a.input)-size]
			}
		case b == 0x15:
			a.input = a.input[:0]
		case b == 0x03:
			if len(a.input) == 0 {
				return fedInterrupt
			}
			a.input = a.input[:0]
		case b == '\t' || b >= 0x20 && b != 0x7f:
			a.input = append(a.input, b)
		}
	}
	return fedMore
}

// drawInput redraws the prompt line with the current input.
func (a *Agent) drawInput() {
	if a.noEcho {
		a.promptShown = true
		return
	}
	text := string(a.input)
	if a.collapse && strings.Count(text, "\n") > 0 && !a.inPaste {
		a.write(fmt.Sprintf("\r\x1b[2K%s[Pasted text #%d +%d lines]", promptMark, a.pastes, strings.Count(text, "\n")))
		a.promptShown = true
		return
	}
	first, rest, multi := strings.Cut(text, "\n")
	shown := []rune(sanitize(first))
	if len(shown) > maxShown {
		shown = append(shown[:maxShown-1], '…')
	}
	line := "\r\x1b[2K" + promptMark + string(shown)
	if multi {
		line += fmt.Sprintf(" [+%d lines]", strings.Count(rest, "\n")+1)
	}
	a.write(line)
	a.promptShown = true
}

// sanitize replaces control characters so the prompt line stays one line.
func sanitize(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 && r != '\t' || r == 0x7f {
			return '?'
		}
		return r
	}, s)
}
