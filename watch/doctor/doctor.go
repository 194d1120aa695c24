// Package doctor checks an installed agent the way a loop would use it:
// offline, against the fake model API built into the binary, on a private
// tmux server, with a throwaway HOME. It drives two real loops (one with the
// agent's turn-end hook, one without), listens to what they learn of the
// agent (contract.Event), and reports one line per signal a loop relies on.
package doctor

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch"
	"github.com/ralph-tmux/ralph.tmux/watch/agent"
	"github.com/ralph-tmux/ralph.tmux/watch/contract"
	"github.com/ralph-tmux/ralph.tmux/watch/fakeapi"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
	"github.com/ralph-tmux/ralph.tmux/watch/tmux"
)

// Options say which agent to check.
type Options struct {
	Agent        string         // profile name; "" guesses it from Command
	Command      []string       // how the agent is started; empty: the profile's program on PATH
	ReadyPattern *regexp.Regexp // overrides the profile's, to try a --ready-pattern
	Executable   string         // this program, which the agent's turn-end hook calls back
}

// Report is what doctor found out about one agent.
type Report struct {
	Agent   string   `json:"agent"`            // the profile
	Command []string `json:"command"`          // as started
	Version string   `json:"version"`          // its --version, first line
	Pinned  string   `json:"pinned,omitempty"` // the release ralph.tmux is checked against (watch/doctor/versions)
	Signals []Signal `json:"signals"`
	Works   bool     `json:"works"` // a loop would work
	Fixes   []string `json:"fixes,omitempty"`
	// Warnings say how the agent as launched would stop at its tools in a
	// loop (ToolWarnings), whatever the signals say.
	Warnings []string      `json:"warnings,omitempty"`
	Took     time.Duration `json:"-"`
	Kept     string        `json:"kept,omitempty"` // the folder with screens and logs, kept when something failed
	// Bypass is set when the command gave the agent its own HOME or model
	// API instead of doctor's: nothing was checked, and Works says nothing.
	Bypass *Bypass `json:"bypass,omitempty"`
}

// The doctor's prompt names the done token, as a loop's prompt does: only
// the reply's token may count, never the echoed prompt's.
const (
	Prompt      = "Doctor check: answer in one line. When every task is finished, print RALPH_DONE on a line of its own.\n"
	donePattern = `RALPH_DONE`
)

// What the fake model answers in each turn of each loop. The delay lets a
// turn be seen busy.
var (
	replyWorking = "!delay 1500ms\nStill working on it."
	replyDone    = "!delay 1500ms\nAll tasks complete.\nRALPH_DONE"
	replyLimit   = "!limit 3600"
)

// Bounds of each loop: generous for an agent that starts slowly (Gemini CLI
// took over 10 s on a busy 2-core machine), short enough that a signal that
// never comes does not hold doctor long.
const (
	readyTimeout      = 20 * time.Second
	inactivityTimeout = 13 * time.Second // past a profile's idle grace for a turn not seen busy (4 × 3s)
	runTimeout        = 150 * time.Second
)

// ErrNotFound says the agent's program is not installed.
var ErrNotFound = errors.New("not found")

// Resolve picks the profile and the command: the named profile (else the
// one the command's program names), and the given command (else the
// profile's program on PATH).
func Resolve(name string, command []string) (agent.Profile, []string, error) {
	if name == "" {
		if len(command) == 0 {
			return agent.Profile{}, nil, errors.New("name an agent (--agent NAME) or give its command (-- COMMAND)")
		}
		name = agent.Guess(command)
	}
	p, ok := agent.Lookup(name)
	if !ok {
		return p, nil, fmt.Errorf("unknown agent %q: use %s", name, strings.Join(agent.Names(), ", "))
	}
	if len(command) == 0 {
		if len(p.Commands) == 0 {
			return p, nil, fmt.Errorf("the %s profile has no program of its own: give its command (-- COMMAND)", name)
		}
		command = []string{p.Commands[0]}
	}
	if _, err := exec.LookPath(command[0]); err != nil {
		return p, command, fmt.Errorf("%s: %w", command[0], ErrNotFound)
	}
	command = append([]string(nil), command...)
	if strings.Contains(command[0], "/") { // ./claude: the agent runs in another folder
		if abs, err := filepath.Abs(command[0]); err == nil {
			command[0] = abs
		}
	}
	return p, command, nil
}

var servers atomic.Int64

// Run checks the agent and reports what it found. An error means doctor
// could not run at all (no tmux, no such agent), not that a signal failed.
func Run(ctx context.Context, o Options) (*Report, error) {
	began := time.Now()
	profile, command, err := Resolve(o.Agent, o.Command)
	if err != nil {
		return nil, err
	}
	if o.ReadyPattern != nil {
		profile.Ready = o.ReadyPattern
	}
	if _, err := exec.LookPath("tmux"); err != nil {
		return nil, errors.New("tmux not found on PATH: install tmux 3.2 or newer")
	}
	dir, err := os.MkdirTemp("", "ralph-doctor-")
	if err != nil {
		return nil, err
	}
	// The command's secrets are hidden and not carried: the agent talks to
	// doctor's fake model API with doctor's own key.
	shown, _, _ := agent.HideSecrets(command, os.Getenv)
	rep := &Report{Agent: profile.Name, Command: shown}
	cwd, _ := os.Getwd()
	rep.Warnings = ToolWarnings(Launched{Agent: profile.Name, Command: command, Home: os.Getenv("HOME"), Dir: cwd,
		Getenv: os.Getenv, Root: os.Geteuid() == 0})
	keep := false
	defer func() {
		if !keep {
			_ = os.RemoveAll(dir)
		}
	}()

	// The turn-end hook calls back with SIGUSR1; it stays caught until every
	// agent is gone, so a late hook cannot kill this process.
	wakeAll := make(chan os.Signal, 4)
	signal.Notify(wakeAll, syscall.SIGUSR1)
	defer signal.Stop(wakeAll)

	srv, err := startServer(fmt.Sprintf("ralph-doctor-%d-%d", os.Getpid(), servers.Add(1)), dir)
	if err != nil {
		return nil, err
	}
	defer srv.kill()

	runs := []*agentRun{
		{name: "hook", hook: true, replies: []string{replyWorking, replyDone}},
		{name: "screen", replies: []string{replyWorking, replyLimit}},
	}
	ctx, stopAll := context.WithCancel(ctx)
	defer stopAll()
	for _, r := range runs {
		r.stopAll = stopAll
		if err := r.prepare(srv, dir, profile, shown, o); err != nil {
			return nil, err
		}
		defer func() { _ = r.api.Close() }()
	}
	rep.Version = version(ctx, command, runs[0].env(srv))
	if pinned, ok := PinnedRelease(profile.Name); ok {
		rep.Pinned = pinned.Version
	}

	go func() {
		for range wakeAll {
			for _, r := range runs {
				select {
				case r.wake <- syscall.SIGUSR1:
				default:
				}
			}
		}
	}()
	var wg sync.WaitGroup
	for _, r := range runs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.run(ctx, srv)
		}()
	}
	wg.Wait()
	srv.endAgents()

	for _, r := range runs {
		if b := r.bypassed(); b != nil {
			rep.Bypass = b
			rep.Signals = notChecked("the agent ran with its own " + bypassWhat(b))
			rep.Took = time.Since(began)
			return rep, nil
		}
	}
	obs := Observed{Profile: profile, Hook: runs[0].recorded(), Screen: runs[1].recorded(), Prompt: Prompt}
	for _, r := range runs {
		obs.Received = append(obs.Received, r.api.Prompts()...)
		obs.APIUsed = obs.APIUsed || len(r.api.Requests()) > 0
		if obs.ReadyScreen == "" {
			obs.ReadyScreen = r.readyScreen
		}
	}
	rep.Signals = Evaluate(obs)
	rep.Works, rep.Fixes = Works(rep.Signals)
	rep.Took = time.Since(began)
	if failed(rep.Signals) {
		keep, rep.Kept = true, dir
	}
	return rep, nil
}

func failed(signals []Signal) bool {
	for _, s := range signals {
		if s.Status == Fail {
			return true
		}
	}
	return false
}

// version is the first line the agent prints for --version.
func version(ctx context.Context, command []string, env []string) string {
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, command[0], append(append([]string(nil), command[1:]...), "--version")...)
	cmd.Env = env
	out, err := cmd.Output()
	line, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	if err != nil || line == "" {
		return "unknown"
	}
	return strings.TrimSpace(line)
}

// agentRun is one loop of the agent, with its own HOME, project folder,
// fake API and tmux session.
type agentRun struct {
	name    string   // the session's name, and the loop's
	hook    bool     // install the agent's turn-end hook
	replies []string // the model's reply in each iteration

	home, proj string
	api        *fakeapi.Server
	setup      Setup
	cfg        watch.Config
	store      *state.Store
	wake       chan os.Signal
	stopAll    context.CancelFunc // ends every run of this check

	mu          sync.Mutex
	events      []contract.Event
	readyScreen string
	bypass      *Bypass
}

// prepare writes the run's configuration and opens its tmux session.
func (r *agentRun) prepare(srv *server, dir string, profile agent.Profile, command []string, o Options) error {
	base := filepath.Join(dir, r.name)
	r.home, r.proj = filepath.Join(base, "home"), filepath.Join(base, "proj")
	for _, d := range []string{r.home, r.proj, filepath.Join(base, "tmp")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return err
		}
	}
	api, err := fakeapi.Start(fakeapi.Options{Reply: r.replies[0], Log: filepath.Join(base, "api.log")})
	if err != nil {
		return fmt.Errorf("start the fake API: %w", err)
	}
	r.api = api
	if r.setup, err = Prepare(profile.Name, r.home, r.proj, api.URL); err != nil {
		return fmt.Errorf("prepare %s's configuration: %w", profile.Name, err)
	}
	if r.store, err = state.Open(filepath.Join(dir, "state"), "doctor-"+r.name); err != nil {
		return err
	}
	pane, err := srv.session(r.name, r.proj, r.sessionEnv(base))
	if err != nil {
		return err
	}
	promptFile := filepath.Join(base, "PROMPT.md")
	if err := os.WriteFile(promptFile, []byte(Prompt), 0o600); err != nil {
		return err
	}
	r.wake = make(chan os.Signal, 1)
	if placed, ok := agent.PlaceArgs(command, nil, r.setup.Last); ok {
		command = placed // after the agent's own words, whatever launches it
	}
	// A loop's defaults, with doctor's shorter waits and no casts.
	c := watch.Defaults()
	c.Name, c.Pane, c.Socket, c.Dir = "doctor-"+r.name, pane, srv.socket(), r.proj
	c.Command, c.PromptFile, c.PromptMode = command, promptFile, agent.ModeType
	c.MaxIterations, c.DonePattern, c.CheckDoneContinuous = len(r.replies), regexp.MustCompile(donePattern), true
	c.InactivityTimeout, c.PollInterval = inactivityTimeout, 500*time.Millisecond
	c.ReadyTimeout, c.RestartDelay, c.LimitWait = max(readyTimeout, profile.SlowStart), 200*time.Millisecond, time.Hour
	c.Agent, c.ReadyPattern, c.TurnHook = profile, profile.Ready, r.hook
	c.Executable, c.AgentHome, c.CastLimit = o.Executable, r.home, 0
	r.cfg = c
	return nil
}

// sessionEnv is what the run's agent sees beyond the server's clean environment.
func (r *agentRun) sessionEnv(base string) []string {
	env := []string{"HOME=" + r.home, "TMPDIR=" + filepath.Join(base, "tmp"), "NO_PROXY=127.0.0.1,localhost",
		"RALPH_DOCTOR_RUN=" + r.name}
	return append(env, r.setup.Env...)
}

// env is the run's environment for a command started outside tmux.
func (r *agentRun) env(srv *server) []string {
	return append(append([]string(nil), srv.Env...), r.sessionEnv(filepath.Dir(r.home))...)
}

// run drives the loop to its end: done, its iterations, a limit (which
// would make it wait for hours: it is interrupted), or the time doctor allows.
func (r *agentRun) run(ctx context.Context, srv *server) {
	ctx, cancel := context.WithTimeout(ctx, runTimeout)
	defer cancel()
	cfg := r.cfg
	cfg.Events = func(e contract.Event) {
		r.mu.Lock()
		r.events = append(r.events, e)
		r.mu.Unlock()
		if lookBefore[e.Kind] && r.bypassed() == nil {
			r.lookForBypass(srv, cfg.Pane)
		}
		switch {
		case e.Kind == contract.EventStarted && e.Iteration <= len(r.replies):
			r.api.SetReply(r.replies[e.Iteration-1])
		case e.Kind == contract.EventLimit:
			cancel()
		case e.Kind == contract.EventSubmitted && e.Iteration <= len(r.replies) &&
			r.replies[e.Iteration-1] == replyLimit && cfg.Agent.Limit == nil && !cfg.TurnHook:
			// Nothing on its screen can tell this limit (the profile knows
			// no limit line) and no hook listens: once the prompt is in,
			// there is nothing left to learn (Copilot CLI would retry for a minute).
			cancel()
		case e.Kind == contract.EventReady && e.Via == contract.ViaTimeout:
			if screen, err := srv.Client.Capture(tmux.CaptureRequest{Pane: cfg.Pane, Join: true}); err == nil {
				r.mu.Lock()
				r.readyScreen = lastLines(screen, 12)
				r.mu.Unlock()
			}
		}
	}
	log, err := os.Create(filepath.Join(filepath.Dir(r.home), "loop.log"))
	if err != nil {
		return
	}
	defer log.Close()
	loop := &watch.Loop{Config: cfg, Tmux: srv.Client, Store: r.store, Out: log, Err: log, Wake: r.wake}
	loop.Run(ctx)
}

// lookBefore are the events after which the agent's environment is read:
// the agent has started (it drew, turned on bracketed paste, showed a
// screen), and the prompt is not typed yet (ready comes before the typing).
var lookBefore = map[contract.EventKind]bool{contract.EventOutput: true, contract.EventPasteOn: true, contract.EventStartup: true,
	contract.EventDialog: true, contract.EventLimit: true, contract.EventReady: true}

// lookForBypass reads the environment the agent was started with. If the
// command gave it another HOME or model API than doctor's, the agent is
// ended before the prompt is typed (the event that says it is ready comes
// before the typing), and so is the whole check: it would talk to the
// person's own API, with their own settings.
func (r *agentRun) lookForBypass(srv *server, pane string) {
	p, err := srv.Client.Pane(pane)
	if err != nil || p.Dead || p.PID <= 0 {
		return
	}
	b := findBypass(r.cfg.Agent.Name, agent.Procs(p.PID))
	if b == nil {
		return
	}
	r.mu.Lock()
	r.bypass = b
	r.mu.Unlock()
	agent.EndTree(p.PID, time.Second)
	r.stopAll()
}

func (r *agentRun) bypassed() *Bypass {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.bypass
}

func (r *agentRun) recorded() []contract.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]contract.Event(nil), r.events...)
}

// lastLines is the last n lines of a screen that are not blank.
func lastLines(screen string, n int) string {
	var kept []string
	for _, l := range strings.Split(screen, "\n") {
		if strings.TrimSpace(l) != "" {
			kept = append(kept, strings.TrimRight(l, " "))
		}
	}
	if len(kept) > n {
		kept = kept[len(kept)-n:]
	}
	return strings.Join(kept, "\n")
}
