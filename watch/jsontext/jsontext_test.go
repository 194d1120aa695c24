package jsontext

import "testing"

func TestStringsMarksTheBytesOfStringsQuotesAndEscapesIncluded(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{`{"a": 1}`, ` sss     `[:8]},
		{`"a\"b" x`, `ssssss  `},
		{`"\\" "x"`, `ssss sss`},
		{`{}/`, `   `},
	} {
		var s Strings
		got := make([]byte, len(c.text))
		for i := range len(c.text) {
			got[i] = ' '
			if s.Step(c.text[i]) {
				got[i] = 's'
			}
		}
		if string(got) != c.want {
			t.Errorf("%s: %q, want %q", c.text, got, c.want)
		}
	}
}
