// Command refpoll is the benchmark's reference: the seed's loop, literally.
// Every interval it execs one tmux command (pane state and capture-pane of
// the last lines, in one call, which is kinder to it than two), hashes the
// last lines with MD5 for inactivity, and matches the done pattern on the
// text after the baseline (a capture taken once the prompt is delivered; the
// whole capture when that is no longer its prefix).
//
//	refpoll -S SOCKET -t PANE -prompt-file F [flags] -- COMMAND [ARG...]
package main

import (
	"bytes"
	"crypto/md5"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"time"
)

func main() {
	var (
		socket, pane, promptFile, mode, done string
		interval, inactivity, restartDelay   time.Duration
		lines, maxIterations                 int
	)
	fs := flag.NewFlagSet("refpoll", flag.ExitOnError)
	fs.StringVar(&socket, "S", "", "tmux socket path")
	fs.StringVar(&pane, "t", "", "pane to loop")
	fs.StringVar(&promptFile, "prompt-file", "", "prompt file")
	fs.StringVar(&mode, "mode", "arg", "arg (prompt as last argument) or type (send-keys)")
	fs.StringVar(&done, "done", "", "done pattern")
	fs.DurationVar(&interval, "interval", 2*time.Second, "poll interval")
	fs.DurationVar(&inactivity, "inactivity", 180*time.Second, "inactivity timeout")
	fs.DurationVar(&restartDelay, "restart-delay", time.Second, "pause between iterations")
	fs.IntVar(&lines, "lines", 20, "lines hashed")
	fs.IntVar(&maxIterations, "max-iterations", 0, "0: no limit")
	_ = fs.Parse(os.Args[1:])
	if pane == "" || promptFile == "" || fs.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: refpoll -S SOCKET -t PANE -prompt-file F [flags] -- COMMAND [ARG...]")
		os.Exit(2)
	}
	var doneRE *regexp.Regexp
	if done != "" {
		doneRE = regexp.MustCompile(done)
	}
	p := &poller{socket: socket, pane: pane, lines: lines}
	// The pane stays when the agent exits, so its death can be seen.
	if _, err := p.tmux("set-option", "-p", "-t", pane, "remain-on-exit", "on"); err != nil {
		fatal(err)
	}
	for i := 1; maxIterations == 0 || i <= maxIterations; i++ {
		prompt, err := os.ReadFile(promptFile)
		if err != nil {
			fatal(err)
		}
		args := append([]string{"respawn-pane", "-k", "-t", pane}, fs.Args()...)
		if mode == "arg" {
			args = append(args, string(prompt))
		}
		if _, err := p.tmux(args...); err != nil {
			fatal(err)
		}
		if mode == "type" {
			time.Sleep(interval) // let the agent start
			if err := p.typeText(string(prompt)); err != nil {
				fatal(err)
			}
		}
		_, baseline, err := p.snapshot()
		if err != nil {
			fatal(err)
		}
		if p.watch(baseline, doneRE, interval, inactivity) {
			fmt.Println("refpoll: done pattern matched")
			return
		}
		time.Sleep(restartDelay)
	}
}

type poller struct {
	socket, pane string
	lines        int
}

// watch polls until the agent exits, goes quiet, or prints the done pattern (true).
func (p *poller) watch(baseline string, doneRE *regexp.Regexp, interval, inactivity time.Duration) bool {
	var last [md5.Size]byte
	since := time.Now()
	for {
		time.Sleep(interval)
		dead, text, err := p.snapshot()
		if err != nil {
			fatal(err)
		}
		if doneRE != nil && doneRE.MatchString(After(text, baseline)) {
			return true
		}
		if dead {
			return false
		}
		if h := Hash(text, p.lines); h != last {
			last, since = h, time.Now()
		} else if time.Since(since) >= inactivity {
			return false
		}
	}
}

// snapshot is one exec of tmux: whether the pane is dead, and its last lines.
func (p *poller) snapshot() (dead bool, text string, err error) {
	out, err := p.tmux("display-message", "-p", "-t", p.pane, "#{pane_dead}", ";",
		"capture-pane", "-p", "-t", p.pane, "-S", "-"+strconv.Itoa(p.lines))
	if err != nil {
		return false, "", err
	}
	state, text, _ := strings.Cut(out, "\n")
	return state == "1", text, nil
}

// typeText types the prompt with send-keys -l in pieces (it fails above
// about 16 KB), then presses Enter.
func (p *poller) typeText(text string) error {
	for len(text) > 0 {
		n := min(len(text), 4096)
		piece := text[:n]
		if strings.HasSuffix(piece, ";") {
			piece = piece[:n-1] + `\;` // tmux would take it for a command separator
		}
		if _, err := p.tmux("send-keys", "-l", "-t", p.pane, "--", piece); err != nil {
			return err
		}
		text = text[n:]
	}
	_, err := p.tmux("send-keys", "-t", p.pane, "Enter")
	return err
}

func (p *poller) tmux(args ...string) (string, error) {
	var out, stderr bytes.Buffer
	cmd := exec.Command("tmux", append([]string{"-S", p.socket}, args...)...)
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("tmux %s: %v: %s", args[0], err, strings.TrimSpace(stderr.String()))
	}
	return out.String(), nil
}

// Hash is the MD5 of the last n non-blank lines of a capture.
func Hash(capture string, n int) [md5.Size]byte {
	var kept []string
	for _, l := range strings.Split(capture, "\n") {
		if l = strings.TrimRight(l, " \t"); l != "" {
			kept = append(kept, l)
		}
	}
	if len(kept) > n {
		kept = kept[len(kept)-n:]
	}
	return md5.Sum([]byte(strings.Join(kept, "\n")))
}

// After is the text after the baseline, or all of it when the baseline no
// longer prefixes it (the screen scrolled or was redrawn).
func After(text, baseline string) string {
	if rest, ok := strings.CutPrefix(text, baseline); ok {
		return rest
	}
	return text
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "refpoll:", err)
	os.Exit(1)
}
