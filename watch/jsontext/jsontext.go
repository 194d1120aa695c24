// Package jsontext reads JSON text byte by byte, for what scans it without
// parsing it: comments to blank, objects to find in other output.
package jsontext

// Strings tells, byte by byte, whether JSON text is inside a string, so
// that a brace, a slash or a quote in one is not taken for syntax.
type Strings struct{ in, escaped bool }

// Step reads the next byte and reports whether it belongs to a string,
// its quotes included.
func (s *Strings) Step(c byte) bool {
	switch {
	case !s.in:
		s.in = c == '"'
		return s.in
	case s.escaped:
		s.escaped = false
	case c == '\\':
		s.escaped = true
	case c == '"':
		s.in = false
	}
	return true
}
