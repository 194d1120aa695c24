package cast

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

var start = time.Date(2026, 11, 22, 19, 0, 0, 0, time.UTC)

// at is start plus the given milliseconds.
func at(ms int) time.Time { return start.Add(time.Duration(ms) * time.Millisecond) }

func readFile(t *testing.T, path string) (Header, []Event) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h, events, err := Read(f)
	if err != nil {
		t.Fatal(err)
	}
	return h, events
}

func TestRecordedIterationReadsBackAsWritten(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName(3))
	r, err := Create(path, Header{Width: 100, Height: 30, Name: "web", Iteration: 3, Env: map[string]string{"TERM": "tmux-256color"}}, start, 0)
	if err != nil {
		t.Fatal(err)
	}
	steps := []func() error{
		func() error { return r.Output(at(10), []byte("\x1b[1;31mhello\x1b[0m\r\n")) },
		func() error { return r.Marker(at(250), MarkPromptDelivered) },
		func() error { return r.Output(at(1500), []byte("<tag> & \"quote\" \\ tab\t")) },
		func() error { return r.Resize(at(2000), 120, 40) },
		func() error { return r.Output(at(1999), []byte("clock went back")) },
		func() error { return r.Marker(at(3000), MarkTurnEnd) },
		r.Close,
	}
	for i, step := range steps {
		if err := step(); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
	}
	h, events := readFile(t, path)
	wantHeader := Header{Width: 100, Height: 30, Timestamp: start.Unix(), Title: "web iteration 3",
		Env: map[string]string{"TERM": "tmux-256color"}, Name: "web", Iteration: 3}
	if !reflect.DeepEqual(h, wantHeader) {
		t.Errorf("header = %+v, want %+v", h, wantHeader)
	}
	ms := time.Millisecond
	want := []Event{
		{10 * ms, Output, "\x1b[1;31mhello\x1b[0m\r\n"},
		{250 * ms, Marker, MarkPromptDelivered},
		{1500 * ms, Output, "<tag> & \"quote\" \\ tab\t"},
		{2000 * ms, Resize, "120x40"},
		{2000 * ms, Output, "clock went back"}, // times never go back
		{3000 * ms, Marker, MarkTurnEnd},
	}
	if !reflect.DeepEqual(events, want) {
		t.Errorf("events =\n%q\nwant\n%q", events, want)
	}
	raw, _ := os.ReadFile(path)
	first, _, _ := strings.Cut(string(raw), "\n")
	if !strings.HasPrefix(first, `{"version":2,"width":100,"height":30,`) || !strings.Contains(first, `"ralph":{"name":"web","iteration":3}`) {
		t.Errorf("header line = %s", first)
	}
	if !strings.Contains(string(raw), `[0.010000, "o", "\u001b[1;31mhello`) {
		t.Errorf("events are not written as asciinema writes them:\n%s", raw)
	}
}

func TestUTF8SplitAcrossWritesStaysWhole(t *testing.T) {
	text := []byte("é漢字🙂 done ✓")
	for cut := 0; cut <= len(text); cut++ {
		path := filepath.Join(t.TempDir(), "1.cast")
		r, err := Create(path, Header{Width: 80, Height: 24}, start, 0)
		if err != nil {
			t.Fatal(err)
		}
		// Each byte of the head alone, then the rest: every split point is met.
		for i := 0; i < cut; i++ {
			if err := r.Output(at(i), text[i:i+1]); err != nil {
				t.Fatal(err)
			}
		}
		if err := r.Output(at(cut), text[cut:]); err != nil {
			t.Fatal(err)
		}
		if err := r.Close(); err != nil {
			t.Fatal(err)
		}
		_, events := readFile(t, path)
		var got strings.Builder
		for _, e := range events {
			if !utf8.ValidString(e.Data) || strings.ContainsRune(e.Data, utf8.RuneError) {
				t.Fatalf("cut %d: event %q holds a broken sequence", cut, e.Data)
			}
			got.WriteString(e.Data)
		}
		if got.String() != string(text) {
			t.Fatalf("cut %d: output = %q, want %q", cut, got.String(), text)
		}
	}
}

func TestIncompleteSequenceAtCloseIsKept(t *testing.T) {
	path := filepath.Join(t.TempDir(), "1.cast")
	r, err := Create(path, Header{Width: 80, Height: 24}, start, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Output(at(1), []byte("ab\xe6\xbc")); err != nil {
		t.Fatal(err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	_, events := readFile(t, path)
	if len(events) != 2 || events[0].Data != "ab" || events[1].Data != "\ufffd\ufffd" {
		t.Errorf("events = %q, want ab then the cut tail as replacement characters", events)
	}
}

func TestCapCutsOutputAndLeavesOneMarker(t *testing.T) {
	path := filepath.Join(t.TempDir(), "1.cast")
	const limit = 2000
	r, err := Create(path, Header{Width: 80, Height: 24}, start, limit)
	if err != nil {
		t.Fatal(err)
	}
	chunk := bytes.Repeat([]byte("x"), 100)
	for i := 0; i < 50; i++ {
		if err := r.Output(at(i*10), chunk); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.Marker(at(600), MarkTurnEnd); err != nil {
		t.Fatal(err)
	}
	if !r.Cut() {
		t.Error("Cut() = false after writing past the limit")
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	info, _ := os.Stat(path)
	if info.Size() > limit {
		t.Errorf("file is %d bytes, limit %d", info.Size(), limit)
	}
	_, events := readFile(t, path)
	last := events[len(events)-1]
	if last.Code != Marker || last.Data != CutLabel(limit) {
		t.Errorf("last event = %q, want the cut marker", last)
	}
	outputs := 0
	for _, e := range events {
		if e.Code == Output {
			outputs++
		}
		if e.Code == Marker && e != last {
			t.Errorf("an event after the cut was written: %q", e)
		}
	}
	if outputs < 10 || outputs >= 50 {
		t.Errorf("%d output events kept under a %d byte cap", outputs, limit)
	}
}

func TestCreateRefusesAnEmptySize(t *testing.T) {
	if _, err := Create(filepath.Join(t.TempDir(), "1.cast"), Header{Width: 0, Height: 24}, start, 0); err == nil {
		t.Error("Create accepted a width of 0")
	}
}

func TestMarkersFromAnotherGoroutineKeepLinesWhole(t *testing.T) {
	path := filepath.Join(t.TempDir(), "1.cast")
	r, err := Create(path, Header{Width: 80, Height: 24}, start, 0)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; i < 200; i++ {
			if err := r.Marker(at(i), MarkTurnEnd); err != nil {
				t.Error(err)
			}
		}
	}()
	for i := 0; i < 200; i++ {
		if err := r.Output(at(i), []byte("漢字 output line\r\n")); err != nil {
			t.Error(err)
		}
	}
	<-done
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	_, events := readFile(t, path)
	if len(events) != 400 {
		t.Errorf("%d events, want 400", len(events))
	}
}
