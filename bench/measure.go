package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// clockTick is the unit of the children's times in /proc/PID/stat (USER_HZ).
const clockTick = 10 * time.Millisecond

// ProcStat is what the harness reads from /proc/PID/stat.
type ProcStat struct {
	State          string
	PPID           int
	Children       time.Duration // CPU of waited-for children (cutime + cstime)
	UserSys        time.Duration // the process's own utime + stime, at tick precision
	StartTimeTicks int64
}

// ParseStat parses a /proc/PID/stat line; the command name may hold spaces and parentheses.
func ParseStat(line string) (ProcStat, error) {
	i := strings.LastIndexByte(line, ')')
	if i < 0 {
		return ProcStat{}, fmt.Errorf("parse stat: no command name in %q", line)
	}
	f := strings.Fields(line[i+1:])
	if len(f) < 20 {
		return ProcStat{}, fmt.Errorf("parse stat: %d fields", len(f))
	}
	n := func(k int) int64 { v, _ := strconv.ParseInt(f[k], 10, 64); return v }
	return ProcStat{
		State:          f[0],
		PPID:           int(n(1)),
		UserSys:        time.Duration(n(11)+n(12)) * clockTick,
		Children:       time.Duration(n(13)+n(14)) * clockTick,
		StartTimeTicks: n(19),
	}, nil
}

// ParseSchedstat reads the time on CPU (ns) from a /proc/.../schedstat line.
func ParseSchedstat(line string) (time.Duration, error) {
	f := strings.Fields(line)
	if len(f) < 1 {
		return 0, fmt.Errorf("parse schedstat: empty")
	}
	ns, err := strconv.ParseInt(f[0], 10, 64)
	if err != nil {
		return 0, fmt.Errorf("parse schedstat: %w", err)
	}
	return time.Duration(ns), nil
}

// ParseStatusKB reads a "Name:   1234 kB" field from /proc/PID/status.
func ParseStatusKB(status, name string) (int64, error) {
	for _, line := range strings.Split(status, "\n") {
		if rest, ok := strings.CutPrefix(line, name+":"); ok {
			f := strings.Fields(rest)
			if len(f) == 0 {
				break
			}
			return strconv.ParseInt(f[0], 10, 64)
		}
	}
	return 0, fmt.Errorf("parse status: no %s", name)
}

// CPU is a process's CPU time so far: its threads' time on CPU (ns precise)
// and its waited-for children's (tick precise).
func CPU(pid int) (time.Duration, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	st, err := ParseStat(string(data))
	if err != nil {
		return 0, err
	}
	total := st.Children
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/schedstat", pid))
	if len(tasks) == 0 {
		return total + st.UserSys, nil
	}
	for _, t := range tasks {
		data, err := os.ReadFile(t)
		if err != nil {
			continue // a thread that just ended
		}
		if d, err := ParseSchedstat(string(data)); err == nil {
			total += d
		}
	}
	return total, nil
}

// Memory is a process's resident set now and at its peak, in kB.
func Memory(pid int) (rss, peak int64, err error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0, err
	}
	rss, err = ParseStatusKB(string(data), "VmRSS")
	if err != nil {
		return 0, 0, err
	}
	peak, err = ParseStatusKB(string(data), "VmHWM")
	return rss, peak, err
}

// ChildrenOf lists the live processes whose parent is pid.
func ChildrenOf(pid int) []int {
	entries, _ := os.ReadDir("/proc")
	var kids []int
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		data, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		if st, err := ParseStat(string(data)); err == nil && st.PPID == pid {
			kids = append(kids, p)
		}
	}
	return kids
}

// Summary is a figure's distribution.
type Summary struct {
	N      int     `json:"n"`
	Median float64 `json:"median"`
	P90    float64 `json:"p90"`
	Max    float64 `json:"max"`
}

// Summarize takes the nearest-rank median, 90th percentile and maximum.
func Summarize(samples []float64) Summary {
	if len(samples) == 0 {
		return Summary{}
	}
	s := append([]float64(nil), samples...)
	sort.Float64s(s)
	rank := func(p float64) float64 {
		k := int(p*float64(len(s))+0.999999) - 1
		return s[max(0, min(k, len(s)-1))]
	}
	return Summary{N: len(s), Median: rank(0.5), P90: rank(0.9), Max: s[len(s)-1]}
}

// ParseStamp reads one nanosecond timestamp per field from an agent's stamp file.
func ParseStamp(text string) ([]time.Time, error) {
	var ts []time.Time
	for _, f := range strings.Fields(text) {
		ns, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("parse stamp %q: %w", f, err)
		}
		ts = append(ts, time.Unix(0, ns))
	}
	if len(ts) == 0 {
		return nil, fmt.Errorf("parse stamp: empty")
	}
	return ts, nil
}

// TurnOvers reads a turn agent's log ("start NS" / "exit NS" lines) and
// returns each gap from one agent's exit to the next agent's start.
func TurnOvers(log string) ([]time.Duration, error) {
	var gaps []time.Duration
	var exited time.Time
	for _, line := range strings.Split(strings.TrimSpace(log), "\n") {
		what, ns, ok := strings.Cut(line, " ")
		t, err := strconv.ParseInt(ns, 10, 64)
		if !ok || err != nil {
			return nil, fmt.Errorf("parse turn log line %q", line)
		}
		switch what {
		case "exit":
			exited = time.Unix(0, t)
		case "start":
			if !exited.IsZero() {
				gaps = append(gaps, time.Unix(0, t).Sub(exited))
				exited = time.Time{}
			}
		default:
			return nil, fmt.Errorf("parse turn log line %q", line)
		}
	}
	return gaps, nil
}
