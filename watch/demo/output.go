package demo

import (
	"fmt"
	"strings"
	"time"
)

// echo prints the last prompt as a transcript entry.
func (a *Agent) echo() {
	lines := strings.Split(string(a.last), "\n")
	if len(lines) > 1 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	var b strings.Builder
	b.WriteString("\n")
	for i, l := range lines {
		if i == 0 {
			b.WriteString("> ")
		} else {
			b.WriteString("  ")
		}
		b.WriteString(l)
		b.WriteString("\n")
	}
	a.write(b.String())
}

var spinnerFrames = []rune("·✢✳✶✻✽")

func (a *Agent) spinner(d time.Duration) {
	start := time.Now()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for i := 0; ; i++ {
		elapsed := time.Since(start)
		if elapsed > d {
			elapsed = d
		}
		a.write(fmt.Sprintf("\r\x1b[2K%c Working… (%.1fs · esc to interrupt)", spinnerFrames[i%len(spinnerFrames)], elapsed.Seconds()))
		if elapsed >= d {
			break
		}
		select {
		case <-tick.C:
		case <-time.After(d - elapsed):
		}
	}
	a.write(fmt.Sprintf("\r\x1b[2K✻ Worked for %.1fs\n", d.Seconds()))
}

// flood prints n bytes of 80-byte filler lines.
func (a *Agent) flood(n int) {
	line := strings.Repeat("x", 79) + "\n"
	block := []byte(strings.Repeat(line, 819))
	for n > 0 {
		k := min(n, len(block))
		chunk := block[:k]
		if k < len(block) && k%len(line) != 0 {
			chunk = append(block[:k-1:k-1], '\n')
		}
		_, _ = a.Out.Write(chunk)
		n -= k
	}
}
