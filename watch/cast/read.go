package cast

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// maxSeconds bounds an event's time so it fits a time.Duration (a century).
const maxSeconds = 100 * 365 * 24 * 3600

// Read reads a whole cast, checking it as strictly as Validate.
func Read(r io.Reader) (Header, []Event, error) {
	var events []Event
	h, err := scan(r, func(e Event) { events = append(events, e) })
	if err != nil {
		return Header{}, nil, err
	}
	return h, events, nil
}

// Validate checks that r holds an asciicast v2 file: a header with version 2
// and a positive width and height, the known header keys of the right types,
// then events of three elements, a time not below the one before, a code
// among o, i, m, r, a string as data, and "WxH" for a resize.
func Validate(r io.Reader) error {
	_, err := scan(r, func(Event) {})
	return err
}

// scan checks r line by line and hands each event to each.
func scan(r io.Reader, each func(Event)) (Header, error) {
	br := bufio.NewReader(r)
	line, err := readLine(br)
	if err == io.EOF {
		return Header{}, errors.New("read cast: empty file")
	}
	if err != nil {
		return Header{}, err
	}
	h, err := parseHeader(line)
	if err != nil {
		return Header{}, fmt.Errorf("read cast: line 1: %v", err)
	}
	last := -1.0
	for n := 2; ; n++ {
		line, err := readLine(br)
		if err == io.EOF {
			return h, nil
		}
		if err != nil {
			return Header{}, err
		}
		e, secs, err := parseEvent(line)
		if err == nil && secs < last {
			err = fmt.Errorf("time %v is before %v", secs, last)
		}
		if err != nil {
			return Header{}, fmt.Errorf("read cast: line %d: %v", n, err)
		}
		last = secs
		each(e)
	}
}

// readLine is the next line without its newline; io.EOF when none is left.
func readLine(br *bufio.Reader) ([]byte, error) {
	line, err := br.ReadBytes('\n')
	if err == io.EOF && len(line) > 0 {
		err = nil // a last line may lack its newline
	}
	if err != nil {
		if err != io.EOF {
			err = fmt.Errorf("read cast: %v", err)
		}
		return nil, err
	}
	return bytes.TrimSuffix(line, []byte("\n")), nil
}

// parseHeader checks the header line and the types of the keys it knows;
// other keys are allowed, as the format says.
func parseHeader(line []byte) (Header, error) {
	if !utf8.Valid(line) {
		return Header{}, errors.New("header is not UTF-8")
	}
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(line, &keys); err != nil || keys == nil {
		return Header{}, fmt.Errorf("header is not a JSON object")
	}
	var h Header
	version, err := intKey(keys, "version", true, 32)
	if err != nil {
		return h, err
	}
	if version != Version {
		return h, fmt.Errorf("version %d, want %d", version, Version)
	}
	width, err := intKey(keys, "width", true, 32)
	if err != nil {
		return h, err
	}
	height, err := intKey(keys, "height", true, 32)
	if err != nil {
		return h, err
	}
	h.Width, h.Height = int(width), int(height)
	if h.Width <= 0 || h.Height <= 0 {
		return h, fmt.Errorf("size %dx%d", h.Width, h.Height)
	}
	if h.Timestamp, err = intKey(keys, "timestamp", false, 64); err != nil {
		return h, err
	}
	var theme map[string]json.RawMessage
	var seconds float64
	var info loopInfo
	for _, k := range []struct {
		name string
		into any
	}{
		{"idle_time_limit", &h.IdleTimeLimit}, {"duration", &seconds},
		{"command", &h.Command}, {"title", &h.Title}, {"env", &h.Env},
		{"theme", &theme}, {"ralph", &info},
	} {
		raw, ok := keys[k.name]
		if !ok {
			continue
		}
		if string(raw) == "null" {
			return h, fmt.Errorf("%s is null", k.name)
		}
		if err := json.Unmarshal(raw, k.into); err != nil {
			return h, fmt.Errorf("%s: %v", k.name, err)
		}
	}
	if h.IdleTimeLimit < 0 || seconds < 0 {
		return h, errors.New("negative idle_time_limit or duration")
	}
	h.Name, h.Iteration = info.Name, info.Iteration
	return h, nil
}

// intKey reads an integer key of the given bits; a missing optional key is 0.
func intKey(keys map[string]json.RawMessage, name string, required bool, bits int) (int64, error) {
	raw, ok := keys[name]
	if !ok {
		if required {
			return 0, fmt.Errorf("no %s", name)
		}
		return 0, nil
	}
	n, err := strconv.ParseInt(string(raw), 10, bits)
	if err != nil {
		return 0, fmt.Errorf("%s is not an integer: %s", name, raw)
	}
	return n, nil
}

// parseEvent checks one event line; secs is its time as written.
func parseEvent(line []byte) (Event, float64, error) {
	if !utf8.Valid(line) {
		return Event{}, 0, errors.New("event is not UTF-8")
	}
	var parts []json.RawMessage
	if err := json.Unmarshal(line, &parts); err != nil {
		return Event{}, 0, errors.New("event is not a JSON array")
	}
	if len(parts) != 3 {
		return Event{}, 0, fmt.Errorf("event has %d elements, want 3", len(parts))
	}
	var secs float64
	if err := json.Unmarshal(parts[0], &secs); err != nil || string(parts[0]) == "null" {
		return Event{}, 0, fmt.Errorf("time is not a number: %s", parts[0])
	}
	if secs < 0 || secs > maxSeconds {
		return Event{}, 0, fmt.Errorf("time %v out of range", secs)
	}
	var e Event
	if string(parts[1]) == "null" || json.Unmarshal(parts[1], &e.Code) != nil {
		return Event{}, 0, fmt.Errorf("code is not a string: %s", parts[1])
	}
	if string(parts[2]) == "null" || json.Unmarshal(parts[2], &e.Data) != nil {
		return Event{}, 0, fmt.Errorf("data is not a string: %s", parts[2])
	}
	switch e.Code {
	case Output, Input, Marker:
	case Resize:
		if _, _, err := ParseSize(e.Data); err != nil {
			return Event{}, 0, err
		}
	default:
		return Event{}, 0, fmt.Errorf("unknown code %q", e.Code)
	}
	e.Time = secondsToDuration(secs)
	return e, secs, nil
}

// secondsToDuration rounds to the microsecond, the format's precision.
func secondsToDuration(secs float64) time.Duration {
	return time.Duration(math.Round(secs*1e6)) * time.Microsecond
}

// ParseSize reads a resize event's "WxH".
func ParseSize(s string) (width, height int, err error) {
	w, h, ok := strings.Cut(s, "x")
	width, errW := strconv.Atoi(w)
	height, errH := strconv.Atoi(h)
	digits := strings.Trim(w+h, "0123456789") == ""
	if !ok || !digits || errW != nil || errH != nil || width <= 0 || height <= 0 || width > math.MaxInt32 || height > math.MaxInt32 {
		return 0, 0, fmt.Errorf("resize %q is not WxH", s)
	}
	return width, height, nil
}
