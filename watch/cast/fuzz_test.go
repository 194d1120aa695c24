package cast

import (
	"bytes"
	"reflect"
	"testing"
)

// FuzzRead feeds Read untrusted casts: it must never panic, and what it
// accepts must write back into a cast that reads the same.
func FuzzRead(f *testing.F) {
	f.Add([]byte(goodHeader + "\n" + `[0.248848, "o", "\u001b[1;31mHello\n"]` + "\n" + `[4.05, "r", "80x24"]` + "\n"))
	f.Add([]byte(`{"version": 2, "width": 80, "height": 24, "ralph": {"name": "web", "iteration": 3}}` + "\n" + `[1, "m", "done"]`))
	f.Add([]byte(`{"version": 2, "width": 1, "height": 1}` + "\n" + `[1e-7, "i", "\ud83d\ude42"]` + "\n" + `[1e-7, "o", "\ud800"]`))
	f.Add([]byte(`{"version": 2, "width": 80, "height": 24}` + "\n" + `[0.5, "o", "x"]` + "\n" + `[0.4, "o", "y"]`))
	f.Fuzz(func(t *testing.T, file []byte) {
		h, events, err := Read(bytes.NewReader(file))
		if err != nil {
			return
		}
		again, err := appendHeader(nil, h)
		if err != nil {
			t.Fatalf("header %+v does not write: %v", h, err)
		}
		for _, e := range events {
			again = appendEvent(again, e)
		}
		h2, events2, err := Read(bytes.NewReader(again))
		if err != nil {
			t.Fatalf("written back, the cast is refused: %v\n%s", err, again)
		}
		if !reflect.DeepEqual(events, events2) {
			t.Fatalf("events changed on the way back:\n%q\n%q", events, events2)
		}
		h.Env, h2.Env = nil, nil // an empty env is left out when written
		if !reflect.DeepEqual(h, h2) {
			t.Fatalf("header changed on the way back:\n%+v\n%+v", h, h2)
		}
	})
}
