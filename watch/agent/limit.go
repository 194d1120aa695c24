package agent

import (
	"regexp"
	"strconv"
	"strings"
	"time"
)

var (
	resetEpoch = regexp.MustCompile(`\|(\d{10})\b`)
	resetIn    = regexp.MustCompile(`(?i)(?:try again|resets?|retry)\s+in\s+((?:\d+\s*(?:days?|d|hours?|hrs?|h|minutes?|mins?|m|seconds?|secs?|s)\b[\s,and]*)+)`)
	resetAt    = regexp.MustCompile(`(?i)(?:resets?|reset at|try again at|available again at|until)\s*(?:at\s+)?` +
		`(?:((?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+\d{1,2})(?:st|nd|rd|th)?,?\s*(?:\d{4},?\s*)?)?` +
		`(\d{1,2})(?::(\d{2}))?\s*([ap]\.?m\.?)?(?:\s*\(([A-Za-z_]+(?:/[A-Za-z_+-]+)*)\))?`)
	durationPart = regexp.MustCompile(`(?i)(\d+)\s*([a-z]+)`)
)

// ParseReset reads when a usage limit resets from the text of a limit
// screen: an epoch after "|", "try again in 2 hours 5 minutes", or
// "resets 8pm (Europe/Berlin)" / "try again at Nov 23, 8:05 PM" (the next
// such time after now, in the named zone, else in now's). ok is false when
// no time is written.
func ParseReset(text string, now time.Time) (time.Time, bool) {
	if m := resetEpoch.FindStringSubmatch(text); m != nil {
		sec, _ := strconv.ParseInt(m[1], 10, 64)
		return time.Unix(sec, 0).In(now.Location()), true
	}
	if m := resetIn.FindStringSubmatch(text); m != nil {
		var d time.Duration
		for _, p := range durationPart.FindAllStringSubmatch(m[1], -1) {
			n, _ := strconv.Atoi(p[1])
			switch unit := strings.ToLower(p[2]); {
			case strings.HasPrefix(unit, "d"):
				d += time.Duration(n) * 24 * time.Hour
			case strings.HasPrefix(unit, "h"):
				d += time.Duration(n) * time.Hour
			case strings.HasPrefix(unit, "m"):
				d += time.Duration(n) * time.Minute
			case strings.HasPrefix(unit, "s"):
				d += time.Duration(n) * time.Second
			}
		}
		if d > 0 {
			return now.Add(d), true
		}
	}
	m := resetAt.FindStringSubmatch(text)
	if m == nil || (m[3] == "" && m[4] == "") { // a bare number is no time
		return time.Time{}, false
	}
	hour, _ := strconv.Atoi(m[2])
	minute, _ := strconv.Atoi(m[3])
	if ampm := strings.ToLower(strings.ReplaceAll(m[4], ".", "")); ampm != "" {
		if hour < 1 || hour > 12 {
			return time.Time{}, false
		}
		hour %= 12
		if ampm == "pm" {
			hour += 12
		}
	}
	if hour > 23 || minute > 59 {
		return time.Time{}, false
	}
	loc := now.Location()
	if m[5] != "" {
		if l, err := time.LoadLocation(m[5]); err == nil {
			loc = l
		}
	}
	local := now.In(loc)
	if m[1] != "" {
		day, err := time.ParseInLocation("Jan 2 2006", normalMonthDay(m[1])+" "+strconv.Itoa(local.Year()), loc)
		if err != nil {
			return time.Time{}, false
		}
		t := time.Date(day.Year(), day.Month(), day.Day(), hour, minute, 0, 0, loc)
		if t.Before(local.Add(-24 * time.Hour)) { // written for next year
			t = t.AddDate(1, 0, 0)
		}
		return t.In(now.Location()), true
	}
	t := time.Date(local.Year(), local.Month(), local.Day(), hour, minute, 0, 0, loc)
	if !t.After(local) {
		t = t.AddDate(0, 0, 1)
	}
	return t.In(now.Location()), true
}

// normalMonthDay turns "November 23" or "Nov. 23" into "Nov 23".
func normalMonthDay(s string) string {
	f := strings.Fields(strings.ReplaceAll(s, ".", ""))
	if len(f) != 2 || len(f[0]) < 3 {
		return s
	}
	return strings.ToUpper(f[0][:1]) + strings.ToLower(f[0][1:3]) + " " + f[1]
}
