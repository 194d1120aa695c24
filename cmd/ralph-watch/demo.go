package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/peterbourgon/ff/v3/ffcli"

	"github.com/ralph-tmux/ralph.tmux/watch"
	"github.com/ralph-tmux/ralph.tmux/watch/agent"
	"github.com/ralph-tmux/ralph.tmux/watch/contract"
	"github.com/ralph-tmux/ralph.tmux/watch/control"
	"github.com/ralph-tmux/ralph.tmux/watch/demo"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux"
)

// demoPrompt names the done token, so the demo also shows that the echoed
// prompt never ends the loop: only the agent's own RALPH_DONE line does.
const demoPrompt = `Study the plan, pick the most important task that is not done, do it, and
run the checks. When every task is done, print RALPH_DONE on a line of its own.
`

func demoCommand(e env) *ffcli.Command {
	fs := newFlags("demo")
	iterations := fs.Int("max-iterations", 5, "iterations at most")
	attach := fs.String("attach", "auto", "attach to the demo's tmux session: auto (when on a terminal), yes or no")
	return subcommand(fs, ffcli.Command{
		ShortUsage: "ralph-watch demo [--attach auto|yes|no]",
		ShortHelp:  "loop the built-in demo agent in a private tmux server",
		LongHelp: `
Start a private tmux server, loop the built-in demo agent in it until the
agent prints its done token (iteration 3), and print the iterations log and
the final status, then what to do next. On a terminal you watch it
attached; its last screen stays until you press a key (at most a minute);
detach sooner with the tmux prefix and d.

Example:
  ralph-watch demo --attach no`,
		Subcommands: []*ffcli.Command{subcommand(newFlags("agent"), ffcli.Command{
			ShortUsage: "ralph-watch demo agent",
			ShortHelp:  "run the demo agent itself (what the demo loops)",
			LongHelp: `
Run the scripted demo agent in this terminal: what the demo loops.

Example:
  ralph-watch demo agent`,
			Exec: func(ctx context.Context, args []string) error {
				steps, err := demo.ParseScript(demo.DemoScript)
				if err != nil {
					return control.Errorf(contract.ExitFailed, "%v", err)
				}
				a := &demo.Agent{In: e.Stdin, Out: e.Stdout, Getenv: e.Getenv}
				if code := a.Run(steps); code != 0 {
					return control.Errorf(code, "")
				}
				return nil
			},
		})},
		Exec: func(ctx context.Context, args []string) error {
			switch *attach {
			case "auto", "yes", "no":
			default:
				return control.Errorf(contract.ExitUsage, "invalid --attach %q: use auto, yes or no", *attach)
			}
			return runDemo(ctx, e, *iterations, *attach == "yes" || *attach == "auto" && onTerminal())
		},
	})
}

func onTerminal() bool {
	for _, f := range []*os.File{os.Stdin, os.Stdout} {
		if info, err := f.Stat(); err != nil || info.Mode()&os.ModeCharDevice == 0 {
			return false
		}
	}
	return true
}

func runDemo(ctx context.Context, e env, iterations int, attach bool) error {
	exe, err := e.Executable()
	if err != nil {
		return control.Errorf(contract.ExitFailed, "find own executable: %v", err)
	}
	if _, err := exec.LookPath("tmux"); err != nil {
		return control.Errorf(contract.ExitUsage, "tmux not found on PATH: install tmux 3.2 or newer")
	}
	dir, err := os.MkdirTemp("", "ralph-demo-")
	if err != nil {
		return control.Errorf(contract.ExitFailed, "%v", err)
	}
	defer func() { _ = os.RemoveAll(dir) }()
	promptFile := filepath.Join(dir, "PROMPT.md")
	if err := os.WriteFile(promptFile, []byte(demoPrompt), 0o644); err != nil {
		return control.Errorf(contract.ExitFailed, "%v", err)
	}
	socket := filepath.Join(dir, "tmux.sock")
	client := &tmux.Exec{Server: []string{"-S", socket}}
	start := exec.Command("tmux", "-S", socket, "-f", "/dev/null", "new-session", "-d", "-s", "demo", "-x", "100", "-y", "30", "-c", dir)
	if out, err := start.CombinedOutput(); err != nil {
		return control.Errorf(contract.ExitFailed, "start demo tmux server: %v: %s", err, out)
	}
	defer func() { _ = exec.Command("tmux", "-S", socket, "kill-server").Run() }()
	_ = exec.Command("tmux", "-S", socket, "set-option", "-t", "demo", "status-right", " #{E:@ralph-status} · ralph demo ").Run()
	// The agent exits after its done token: its pane, and the screen that shows it, must stay.
	_ = exec.Command("tmux", "-S", socket, "set-option", "-g", "remain-on-exit", "on").Run()
	pane, err := client.Pane("demo:")
	if err != nil {
		return control.Errorf(contract.ExitFailed, "find demo pane: %v", err)
	}
	store, err := state.Open(filepath.Join(dir, "state"), "demo")
	if err != nil {
		return control.Errorf(contract.ExitFailed, "%v", err)
	}
	// A loop's defaults, with the demo's shorter waits and no casts.
	c := watch.Defaults()
	c.Name, c.Pane, c.Dir, c.Socket = "demo", pane.ID, dir, socket
	c.Command, c.PromptFile, c.PromptMode = []string{exe, "demo", "agent"}, promptFile, agent.ModeType
	c.MaxIterations, c.DonePattern, c.CheckDoneContinuous = iterations, regexp.MustCompile(`RALPH_DONE`), true
	c.InactivityTimeout, c.PollInterval, c.ReadyTimeout = 30*time.Second, 500*time.Millisecond, 15*time.Second
	c.TurnHook, c.CastLimit = false, 0
	loop := &watch.Loop{Config: c, Tmux: client, Store: store, Out: e.Stdout, Err: e.Stderr}
	if !attach {
		fmt.Fprintf(e.Stdout, "ralph demo: looping the demo agent in a private tmux server (%s)\n", socket)
		res := loop.Run(ctx)
		return demoReport(e, store, res)
	}
	out, err := os.Create(filepath.Join(dir, "messages")) // the loop's messages, shown once the client left
	if err != nil {
		return control.Errorf(contract.ExitFailed, "%v", err)
	}
	defer out.Close()
	loop.Out, loop.Err = out, out
	done := make(chan watch.Result, 1)
	go func() { done <- loop.Run(ctx) }()
	attachCmd := exec.Command("tmux", "-S", socket, "attach-session", "-t", "demo")
	attachCmd.Stdin, attachCmd.Stdout, attachCmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	left := make(chan struct{})
	go func() {
		res := <-done
		holdFinalScreen(ctx, socket, res, left)
		_ = exec.Command("tmux", "-S", socket, "detach-client", "-s", "demo").Run()
		done <- res
	}()
	_ = attachCmd.Run()
	close(left)
	res := <-done
	messages, _ := os.ReadFile(out.Name())
	fmt.Fprint(e.Stdout, string(messages))
	return demoReport(e, store, res)
}

// demoHold is how long the demo's last screen stays for the person to read
// when they press no key.
const demoHold = 60 * time.Second

// holdFinalScreen keeps the attached client on the loop's last screen (the
// agent's done token on it) until a key is pressed, the person detached
// (left), or demoHold passed, and says so on the status line.
func holdFinalScreen(ctx context.Context, socket string, res watch.Result, left <-chan struct{}) {
	tmuxCmd := func(args ...string) { _ = exec.Command("tmux", append([]string{"-S", socket}, args...)...).Run() }
	tmuxCmd("bind-key", "-T", "ralph-demo-end", "Any", "detach-client")
	clients, _ := exec.Command("tmux", "-S", socket, "list-clients", "-F", "#{client_name}").Output()
	for _, c := range strings.Fields(string(clients)) {
		tmuxCmd("switch-client", "-c", c, "-T", "ralph-demo-end") // the next key detaches
	}
	what := "the loop ended (" + string(res.Reason) + ")"
	if res.Reason == contract.ReasonDonePattern {
		what = "RALPH_DONE matched: the loop is done"
	}
	tmuxCmd("set-option", "-t", "demo", "status-right-length", "90")
	tmuxCmd("set-option", "-t", "demo", "status-right", " "+what+" · press any key ")
	select {
	case <-left:
	case <-ctx.Done():
	case <-time.After(demoHold):
	}
}

// demoReport prints the iterations log and the final status.
func demoReport(e env, store *state.Store, res watch.Result) error {
	log, _ := os.ReadFile(store.Path(state.LogFile))
	fmt.Fprintf(e.Stdout, "\niterations.log:\n%s", log)
	if st, err := store.Load(); err == nil {
		fmt.Fprintf(e.Stdout, "\nStatus: %s (%s) after %d iterations, exit %d\n", contract.StatusOf(st), res.Reason, st.CurrentIteration, res.Code)
	}
	fmt.Fprint(e.Stdout, demoNext)
	if res.Code != 0 {
		return control.Errorf(res.Code, "")
	}
	return nil
}

// demoNext is what to do after the demo: loop a real agent, get the plugin.
const demoNext = `
Next: loop claude (or codex, gemini, any REPL) in a tmux pane of your own.
In the pane, with a PROMPT.md that asks for RALPH_DONE when all is done
('ralph-watch template > PROMPT.md' writes one):

  ralph-watch run --prompt-file PROMPT.md --max-iterations 20 \
      --done-pattern RALPH_DONE -- claude

Or install the tmux plugin (a key loops the current pane, the status line
shows every loop): with tpm, add to ~/.tmux.conf

  set -g @plugin 'ralph-tmux/ralph.tmux'

and press prefix + I. More: man ralph-watch, and the README.
`
