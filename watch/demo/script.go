// Package demo is a small terminal agent simulator driven by a line-based script.
package demo

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// DemoScript is the built-in demo agent.
// The demo prompt (written by the demo command) asks the agent to print RALPH_DONE when finished, so the echoed prompt contains the token too and only the agent's own RALPH_DONE line below must stop the loop.
const DemoScript = `# ralph demo agent
print ralph demo agent — iteration {{iteration}}
ready
read
echo
print
spinner 2s
print ● Read the plan and picked the next task for iteration {{iteration}}.
print ● Made the change and ran the checks for iteration {{iteration}}: all green.
iter 1 print Some tasks remain; stopping here for this iteration.
iter 2 print Some tasks remain; stopping here for this iteration.
from 3 print All tasks complete.
from 3 print RALPH_DONE
sleep 300ms
exit 0
`

// Step is one parsed script line.
type Step struct {
	Line int    // 1-based line number in the script
	Name string // step keyword, e.g. "print"
	Arg  string // argument as written

	text string        // print/write: Arg with escapes expanded
	dur  time.Duration // sleep, drop-input, spinner
	n    int           // flood/garbage size, exit code, iter/from iteration
	sigs []os.Signal   // ignore
	sub  *Step         // iter/from: the conditional step
}

// ParseScript parses a script, one step per line; blank lines and # comments are skipped.
func ParseScript(text string) ([]Step, error) {
	var steps []Step
	for i, line := range strings.Split(text, "\n") {
		line = strings.TrimLeft(strings.TrimSuffix(line, "\r"), " \t")
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		s, err := parseStep(line)
		if err != nil {
			return nil, fmt.Errorf("line %d: %q: %v", i+1, line, err)
		}
		s.Line = i + 1
		steps = append(steps, s)
	}
	return steps, nil
}

func parseStep(line string) (Step, error) {
	name, arg, _ := strings.Cut(line, " ")
	s := Step{Name: name, Arg: arg}
	var err error
	switch name {
	case "print", "write":
		s.text, err = unescape(arg)
	case "sleep", "drop-input", "spinner":
		s.dur, err = time.ParseDuration(arg)
		if err == nil && s.dur < 0 {
			err = errors.New("negative duration")
		}
	case "ready", "read", "key", "echo", "redraw", "child", "quiet", "alt", "noalt", "stop-hook", "noecho", "collapse", "nopaste":
		if strings.TrimSpace(arg) != "" {
			err = fmt.Errorf("%s takes no argument", name)
		}
	case "save":
		if arg == "" {
			err = errors.New("save needs a path")
		}
	case "append": // append PATH LINE: a session file an agent writes ({{now}} is the time)
		if path, _, _ := strings.Cut(arg, " "); path == "" {
			err = errors.New("append needs a path and a line")
		}
	case "hook":
		event, input, _ := strings.Cut(arg, " ")
		if event == "" {
			err = errors.New("hook needs an event name, e.g. hook SessionStart")
		}
		s.text = strings.TrimSpace(input)
	case "flood", "garbage":
		s.n, err = parseSize(arg)
	case "ignore":
		s.sigs, err = parseSignals(arg)
	case "exit":
		s.n, err = strconv.Atoi(arg)
		if err == nil && (s.n < 0 || s.n > 255) {
			err = errors.New("exit code out of range 0-255")
		}
	case "iter", "from":
		num, rest, _ := strings.Cut(arg, " ")
		s.n, err = strconv.Atoi(num)
		if err != nil {
			break
		}
		if strings.TrimSpace(rest) == "" {
			err = fmt.Errorf("%s needs a step", name)
			break
		}
		var sub Step
		sub, err = parseStep(strings.TrimLeft(rest, " "))
		s.sub = &sub
	default:
		err = errors.New("unknown step")
	}
	return s, err
}

// unescape expands \n \t \e \a \r \\ and \xHH.
func unescape(s string) (string, error) {
	if !strings.Contains(s, `\`) {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' {
			b.WriteByte(c)
			continue
		}
		i++
		if i == len(s) {
			return "", errors.New("trailing backslash")
		}
		switch s[i] {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'e':
			b.WriteByte(0x1b)
		case 'a':
			b.WriteByte(0x07)
		case 'r':
			b.WriteByte('\r')
		case '\\':
			b.WriteByte('\\')
		case 'x':
			if i+2 >= len(s) {
				return "", errors.New(`\x needs two hex digits`)
			}
			v, err := strconv.ParseUint(s[i+1:i+3], 16, 8)
			if err != nil {
				return "", errors.New(`\x needs two hex digits`)
			}
			b.WriteByte(byte(v))
			i += 2
		default:
			return "", fmt.Errorf(`unknown escape \%c`, s[i])
		}
	}
	return b.String(), nil
}

// parseSize reads a byte count with an optional k or m suffix (1024-based).
func parseSize(s string) (int, error) {
	mult := 1
	switch {
	case strings.HasSuffix(s, "k"), strings.HasSuffix(s, "K"):
		mult, s = 1<<10, s[:len(s)-1]
	case strings.HasSuffix(s, "m"), strings.HasSuffix(s, "M"):
		mult, s = 1<<20, s[:len(s)-1]
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("bad size %q", s)
	}
	return n * mult, nil
}

func parseSignals(arg string) ([]os.Signal, error) {
	names := strings.Fields(arg)
	if len(names) == 0 {
		return nil, errors.New("ignore needs signal names")
	}
	var sigs []os.Signal
	for _, name := range names {
		switch strings.TrimPrefix(strings.ToUpper(name), "SIG") {
		case "HUP":
			sigs = append(sigs, syscall.SIGHUP)
		case "TERM":
			sigs = append(sigs, syscall.SIGTERM)
		case "INT":
			sigs = append(sigs, syscall.SIGINT)
		default:
			return nil, fmt.Errorf("unknown signal %q", name)
		}
	}
	return sigs, nil
}
