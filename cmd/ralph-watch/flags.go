package main

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/peterbourgon/ff/v3"

	"github.com/ralph-tmux/ralph.tmux/watch"
)

// durationFlag accepts Go durations (90s, 3m) and bare integers as seconds.
type durationFlag struct{ d *time.Duration }

func (f durationFlag) String() string {
	if f.d == nil || *f.d < 0 { // negative: not given, someone else's default applies
		return ""
	}
	return f.d.String()
}

func (f durationFlag) Set(s string) error {
	d, err := parseDuration(s)
	if err != nil {
		return err
	}
	*f.d = d
	return nil
}

func parseDuration(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		if n < 0 {
			return 0, fmt.Errorf("negative duration %q", s)
		}
		if n > int64(1<<62/time.Second) {
			return 0, fmt.Errorf("duration %q is too long", s)
		}
		return time.Duration(n) * time.Second, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("invalid duration %q (use 90s, 3m or a number of seconds)", s)
	}
	if d < 0 {
		return 0, fmt.Errorf("negative duration %q", s)
	}
	return d, nil
}

// checkFlag adds a check for every --check; checkHintFlag gives the check
// just before it its hint. Both fill one list, so order keeps them paired.
type checkFlag struct{ checks *[]watch.Check }

func (f checkFlag) String() string { return "" }

func (f checkFlag) Set(s string) error {
	if strings.TrimSpace(s) == "" {
		return errors.New("empty check command")
	}
	*f.checks = append(*f.checks, watch.Check{Command: s})
	return nil
}

type checkHintFlag struct{ checks *[]watch.Check }

func (f checkHintFlag) String() string { return "" }

func (f checkHintFlag) Set(s string) error {
	n := len(*f.checks)
	if n == 0 || (*f.checks)[n-1].Hint != "" {
		return errors.New("a hint must follow the --check it explains")
	}
	(*f.checks)[n-1].Hint = s
	return nil
}

// configParser reads .ralph/config as ff's plain parser does, keeping each
// check-hint line with the file's own check line before it: when the command
// line or the environment gave the checks, the file's checks are skipped and
// so are their hints.
func configParser(checks *[]watch.Check) ff.ConfigFileParser {
	return func(r io.Reader, set func(name, value string) error) error {
		seen, skipped := false, false
		return ff.PlainParser(r, func(name, value string) error {
			switch name {
			case "check":
				before := len(*checks)
				if err := set(name, value); err != nil {
					return err
				}
				seen, skipped = true, len(*checks) == before
				return nil
			case "check-hint":
				if !seen {
					return errors.New("config file: a check-hint line must follow the check line it explains")
				}
				if skipped {
					return nil
				}
			}
			return set(name, value)
		})
	}
}
