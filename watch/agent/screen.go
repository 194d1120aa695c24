package agent

import (
	"crypto/md5"
	"strings"
	"time"
)

// ScreenLines returns the last n non-blank lines of a capture, normalized and
// with trailing blanks trimmed, so that only real content is compared.
func ScreenLines(capture string, n int) []string {
	var lines []string
	for _, line := range strings.Split(Normalize(capture), "\n") {
		line = strings.TrimRight(line, " \t")
		if line != "" {
			lines = append(lines, line)
		}
	}
	if n > 0 && len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return lines
}

// ScreenHash is the MD5 of the last n non-blank lines of a capture.
func ScreenHash(capture string, n int) [md5.Size]byte {
	return md5.Sum([]byte(strings.Join(ScreenLines(capture, n), "\n")))
}

// Detector tells how long a screen has stayed the same. It is fed hashes and
// the times they were seen, so it runs on any clock.
type Detector struct {
	hash    [md5.Size]byte
	since   time.Time
	started bool
}

// Observe records the hash seen at now and returns how long it has been unchanged.
func (d *Detector) Observe(hash [md5.Size]byte, now time.Time) time.Duration {
	if !d.started || hash != d.hash {
		d.hash, d.since, d.started = hash, now, true
		return 0
	}
	return now.Sub(d.since)
}

// Reset forgets the last screen, so the next one counts as a change.
func (d *Detector) Reset() { d.started = false }
