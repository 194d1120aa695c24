// Package cast answers "what did the pane show during iteration N": every
// iteration's pane output kept as an asciicast v2 file and played back.
//
// A cast is newline-delimited JSON: one header object (version 2, width,
// height, timestamp, title, and the loop's name and iteration under the
// key "ralph", which asciinema's players ignore), then one event a line,
// [seconds, code, data], with code "o" output, "i" input, "m" marker or
// "r" resize ("WxH").
package cast

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"time"
)

// Version is the asciicast format version written and read.
const Version = 2

// The event codes of asciicast v2.
const (
	Output = "o" // bytes the terminal received
	Input  = "i" // bytes typed into the terminal
	Marker = "m" // a labelled point in time
	Resize = "r" // the terminal's new size, "WxH"
)

// The labels of the markers a loop leaves in an iteration's cast, so a
// player can jump to them.
const (
	MarkPromptDelivered = "prompt delivered"
	MarkDoneMatched     = "done token matched"
	MarkTurnEnd         = "turn end"
)

// Header is a cast's first line.
type Header struct {
	Width, Height int
	Timestamp     int64   // Unix seconds the recording began; 0 when unknown
	IdleTimeLimit float64 // seconds; a player's cap on idle gaps, 0 for none
	Command       string  // the command recorded
	Title         string
	Env           map[string]string
	Name          string // the loop's name
	Iteration     int    // the loop's iteration
}

// Event is one line of a cast after the header.
type Event struct {
	Time time.Duration // since the recording began, in microseconds
	Code string        // Output, Input, Marker or Resize
	Data string
}

// loopInfo is the header's "ralph" key: the loop this cast belongs to.
type loopInfo struct {
	Name      string `json:"name,omitempty"`
	Iteration int    `json:"iteration,omitempty"`
}

// headerJSON fixes the order of the header's keys as asciinema writes them.
type headerJSON struct {
	Version       int               `json:"version"`
	Width         int               `json:"width"`
	Height        int               `json:"height"`
	Timestamp     int64             `json:"timestamp,omitempty"`
	IdleTimeLimit float64           `json:"idle_time_limit,omitempty"`
	Command       string            `json:"command,omitempty"`
	Title         string            `json:"title,omitempty"`
	Env           map[string]string `json:"env,omitempty"`
	Ralph         *loopInfo         `json:"ralph,omitempty"`
}

// DefaultTitle is the title a loop's cast carries: "NAME iteration N".
func DefaultTitle(name string, iteration int) string {
	return fmt.Sprintf("%s iteration %d", name, iteration)
}

// appendHeader appends h as one JSON line.
func appendHeader(buf []byte, h Header) ([]byte, error) {
	hj := headerJSON{
		Version: Version, Width: h.Width, Height: h.Height, Timestamp: h.Timestamp,
		IdleTimeLimit: h.IdleTimeLimit, Command: h.Command, Title: h.Title, Env: h.Env,
	}
	if h.Name != "" || h.Iteration != 0 {
		hj.Ralph = &loopInfo{Name: h.Name, Iteration: h.Iteration}
	}
	b, err := marshal(hj)
	if err != nil {
		return buf, err
	}
	return append(append(buf, b...), '\n'), nil
}

// appendEvent appends e as one JSON line, its time with six decimals as
// asciinema writes it.
func appendEvent(buf []byte, e Event) []byte {
	us := max(e.Time.Microseconds(), 0)
	buf = append(buf, '[')
	buf = strconv.AppendInt(buf, us/1e6, 10)
	buf = append(buf, '.')
	frac := strconv.FormatInt(us%1e6+1e6, 10) // leading 1 keeps the zeros
	buf = append(buf, frac[1:]...)
	buf = append(buf, ", "...)
	code, _ := marshal(e.Code)
	buf = append(buf, code...)
	buf = append(buf, ", "...)
	data, _ := marshal(e.Data) // a string always encodes; bad UTF-8 becomes U+FFFD
	buf = append(buf, data...)
	return append(buf, "]\n"...)
}

// marshal is json.Marshal without HTML escaping, which only bloats terminal output.
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
