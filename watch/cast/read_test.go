package cast

import (
	"strings"
	"testing"
)

// goodHeader carries every key the format knows, one it does not, and a
// null env value as asciinema writes for a variable that is not set.
const goodHeader = `{"version": 2, "width": 80, "height": 24, "timestamp": 4102444800, "title": "web iteration 1", "env": {"TERM": "tmux-256color", "SHELL": "/bin/bash", "LANG": null}, "theme": {"fg": "#cccccc"}, "duration": 6.5, "idle_time_limit": 2, "someone_elses": [1, 2]}`

func TestValidateAcceptsEveryEventCode(t *testing.T) {
	file := goodHeader + "\n" +
		`[0.248848, "o", "\u001b[1;32m❯\u001b[0m ready\r\n"]` + "\n" +
		`[1.001376, "o", "working\rdone   "]` + "\n" +
		`[1.500000, "m", ""]` + "\n" +
		`[2.143733, "i", "y"]` + "\n" +
		`[4.050000, "r", "80x24"]` + "\n" +
		`[6.541828, "o", "bye"]` // no final newline
	h, events, err := Read(strings.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	if h.Width != 80 || h.Height != 24 || h.Title != "web iteration 1" || h.Timestamp != 4102444800 || h.IdleTimeLimit != 2 || h.Env["SHELL"] != "/bin/bash" {
		t.Errorf("header = %+v", h)
	}
	if len(events) != 6 || events[5].Data != "bye" || events[0].Time.Microseconds() != 248848 {
		t.Errorf("events = %q", events)
	}
}

func TestValidateRejectsBrokenFiles(t *testing.T) {
	ok := `[1.0, "o", "x"]`
	for name, file := range map[string]string{
		"empty":                 "",
		"header not an object":  `[2, 80, 24]`,
		"header not JSON":       `{"version": 2, "width": 80`,
		"version 1":             `{"version": 1, "width": 80, "height": 24}`,
		"version 3":             `{"version": 3, "term": {"cols": 80, "rows": 24}}`,
		"version as text":       `{"version": "2", "width": 80, "height": 24}`,
		"version as float":      `{"version": 2.0, "width": 80, "height": 24}`,
		"no width":              `{"version": 2, "height": 24}`,
		"no height":             `{"version": 2, "width": 80}`,
		"zero width":            `{"version": 2, "width": 0, "height": 24}`,
		"negative height":       `{"version": 2, "width": 80, "height": -1}`,
		"fractional width":      `{"version": 2, "width": 80.5, "height": 24}`,
		"timestamp as text":     `{"version": 2, "width": 80, "height": 24, "timestamp": "today"}`,
		"title a number":        `{"version": 2, "width": 80, "height": 24, "title": 7}`,
		"title null":            `{"version": 2, "width": 80, "height": 24, "title": null}`,
		"env values not text":   `{"version": 2, "width": 80, "height": 24, "env": {"A": 1}}`,
		"negative idle limit":   `{"version": 2, "width": 80, "height": 24, "idle_time_limit": -1}`,
		"ralph iteration text":  `{"version": 2, "width": 80, "height": 24, "ralph": {"iteration": "3"}}`,
		"event not an array":    goodHeader + "\n" + `{"t": 1}`,
		"event of two":          goodHeader + "\n" + `[1.0, "o"]`,
		"event of four":         goodHeader + "\n" + `[1.0, "o", "x", "y"]`,
		"time as text":          goodHeader + "\n" + `["1.0", "o", "x"]`,
		"negative time":         goodHeader + "\n" + `[-0.5, "o", "x"]`,
		"time far away":         goodHeader + "\n" + `[1e300, "o", "x"]`,
		"time goes back":        goodHeader + "\n" + `[2.0, "o", "x"]` + "\n" + ok,
		"unknown code":          goodHeader + "\n" + `[1.0, "x", "0"]`,
		"code not a string":     goodHeader + "\n" + `[1.0, 111, "x"]`,
		"data not a string":     goodHeader + "\n" + `[1.0, "o", 5]`,
		"data null":             goodHeader + "\n" + `[1.0, "o", null]`,
		"resize not WxH":        goodHeader + "\n" + `[1.0, "r", "80 by 24"]`,
		"resize to zero":        goodHeader + "\n" + `[1.0, "r", "0x24"]`,
		"resize signed":         goodHeader + "\n" + `[1.0, "r", "+80x24"]`,
		"blank line in between": goodHeader + "\n\n" + ok,
		"not UTF-8":             goodHeader + "\n" + "[1.0, \"o\", \"\xff\"]",
		"trailing garbage":      goodHeader + "\n" + ok + " x",
	} {
		if err := Validate(strings.NewReader(file)); err == nil {
			t.Errorf("%s: Validate accepted\n%s", name, file)
		}
	}
}

func TestReadNamesTheBrokenLine(t *testing.T) {
	file := goodHeader + "\n" + `[1.0, "o", "x"]` + "\n" + `[0.5, "o", "y"]` + "\n"
	err := Validate(strings.NewReader(file))
	if err == nil || !strings.Contains(err.Error(), "line 3") {
		t.Errorf("error = %v, want one naming line 3", err)
	}
}
