package config

import (
	"errors"
	"flag"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/checks"
)

// Duration is a flag that accepts Go durations (90s, 3m) and bare integers
// as seconds.
type Duration struct{ d *time.Duration }

// DurationVar defines a Duration flag on fs that sets d.
func DurationVar(fs *flag.FlagSet, d *time.Duration, name, usage string) {
	fs.Var(Duration{d}, name, usage)
}

func (f Duration) String() string {
	if f.d == nil || *f.d < 0 { // negative: not given, someone else's default applies
		return ""
	}
	return shortDuration(*f.d)
}

// shortDuration is how help and the man page write a duration: 180s, 30m,
// 500ms.
func shortDuration(d time.Duration) string {
	switch {
	case d == 0:
		return "0s"
	case d%time.Hour == 0:
		return fmt.Sprintf("%dh", d/time.Hour)
	case d%time.Minute == 0 && d >= 10*time.Minute:
		return fmt.Sprintf("%dm", d/time.Minute)
	case d%time.Second == 0:
		return fmt.Sprintf("%ds", d/time.Second)
	}
	return d.String()
}

func (f Duration) Set(s string) error {
	d, err := ParseDuration(s)
	if err != nil {
		return err
	}
	*f.d = d
	return nil
}

// ParseDuration reads a Go duration or a bare number of seconds, not
// negative.
func ParseDuration(s string) (time.Duration, error) {
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
type checkFlag struct{ checks *[]checks.Check }

func (f checkFlag) String() string { return "" }

func (f checkFlag) Set(s string) error {
	if strings.TrimSpace(s) == "" {
		return errors.New("empty check command")
	}
	*f.checks = append(*f.checks, checks.Check{Command: s})
	return nil
}

type checkHintFlag struct{ checks *[]checks.Check }

func (f checkHintFlag) String() string { return "" }

func (f checkHintFlag) Set(s string) error {
	n := len(*f.checks)
	if n == 0 || (*f.checks)[n-1].Hint != "" {
		return errors.New("a hint must follow the --check it explains")
	}
	(*f.checks)[n-1].Hint = s
	return nil
}

// commandFlag marks a flag whose value is a command run with sh -c. This
// is the one list of command keys: a config file's value for any of them
// runs only once the person trusted that file (ralph-watch trust).
type commandFlag interface{ runsCommand() }

func (checkFlag) runsCommand() {}

// RunsCommand reports whether a flag's value is a command.
func RunsCommand(fl *flag.Flag) bool {
	_, ok := fl.Value.(commandFlag)
	return ok
}

// commandString is a string flag that names a command (a hook).
type commandString struct{ s *string }

func (f commandString) String() string {
	if f.s == nil {
		return ""
	}
	return *f.s
}

func (f commandString) Set(v string) error { *f.s = v; return nil }

func (commandString) runsCommand() {}

// loopName is --name: given, it must name a loop the other commands can
// reach (an empty one would silently be the default; one starting with -
// would be read as a flag by status NAME and the rest).
type loopName struct{ s *string }

func (f loopName) String() string {
	if f.s == nil {
		return ""
	}
	return *f.s
}

func (f loopName) Set(s string) error {
	switch {
	case s == "":
		return errors.New("a loop name must not be empty (leave --name out for one made from the pane)")
	case strings.HasPrefix(s, "-"):
		return errors.New("a loop name must not start with - (status, stop and the rest would read it as a flag)")
	}
	*f.s = s
	return nil
}
