package watch

import (
	"regexp"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/agent"
	"github.com/ralph-tmux/ralph.tmux/watch/checks"
	"github.com/ralph-tmux/ralph.tmux/watch/contract"
	"github.com/ralph-tmux/ralph.tmux/watch/receipt"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
)

// Config is everything one loop needs; the command line fills it.
type Config struct {
	Name       string   // loop name, [A-Za-z0-9._-]{1,64}
	Pane       string   // pane id, %N
	Socket     string   // the tmux server's socket path, for the record
	Dir        string   // where the agent runs
	Command    []string // the agent and its arguments, secrets hidden (agent.HideSecrets)
	Secrets    []string // NAME=value Command hides: memory only, to the agent by respawn -e
	PromptFile string   // absolute path, read fresh every iteration
	PromptMode string   // agent.ModeType, agent.ModeArg or agent.ModeStdin

	MaxIterations     int           // 0: no limit
	MaxTime           time.Duration // 0: no limit
	InactivityTimeout time.Duration // unchanged screen this long ends the iteration
	PollInterval      time.Duration // how often the screen is compared while output flows, or always without a stream
	IterationTimeout  time.Duration // wall clock per iteration; 0: none
	ReadyTimeout      time.Duration // longest wait for the agent to take input
	RestartDelay      time.Duration // pause between iterations
	Lines             int           // lines hashed for inactivity

	Resume      bool     // continue the loop recorded in the state, adopting a running iteration
	WatcherArgs []string // the run arguments, recorded so resume can start the watcher again
	WatcherDir  string   // the folder they were given in
	// BeatEvery is how often the watcher tells the status line it lives
	// (@ralph-beat) when the server cannot hold its lifeline; 0: neither.
	BeatEvery time.Duration

	DonePattern         *regexp.Regexp // nil: none
	CheckDoneContinuous bool           // match while running, not only at the end
	DoneFile            string         // stop when this exists
	ReadyPattern        *regexp.Regexp // nil: wait for a stable screen
	PauseFile           string         // pause the loop when this appears (it is removed)

	Checks           []checks.Check // run after every iteration in Dir
	CheckTimeout     time.Duration  // per check, and per on-* command
	CheckOutputChars int            // of each failed check's output, in the next prompt
	CheckFailAction  string         // FailAppend, FailPrepend or FailReplace

	IncludeIterationCount bool // start the prompt with "Iteration X of Y, Z remaining."

	OnIterationEnd, OnDone, OnFail string // the person's on-* commands, run with sh -c
	Commit                         bool   // commit all changes after an iteration whose checks pass
	ProgressFile                   string // a section is appended to it per iteration
	Worktree, WorktreeBranch       string // the loop's own git worktree, if any
	WorktreeBase                   string // the branch the worktree came from
	StallLimit                     int    // stop after this many iterations in a row that changed nothing; 0: never

	TasksFile    string // the plan worked through, one task an iteration (absolute); "": none
	TaskAttempts int    // tries a task gets before it is skipped
	TaskID       string // the one task of the plan to work on (a fan's loop: the fan assigns it); "": each in turn
	TaskBase     string // the commit a fan's task began at: its first iteration counts the work since (a lost loop's) as its change; "": none
	Review       bool   // each implemented task gets a review iteration, which alone approves it
	ReviewCap    int    // reviews of one task; the last one approves
	DiffChars    int    // of {{diff}}, the rest cut

	Budget receipt.Budget // the most the loop may spend (--max-tokens, --max-cost); zero: no limit
	Prices receipt.Prices // what models cost, for receipts; nil: receipt.DefaultPrices

	// MaxContext is the share of the agent's context window (percent) at
	// which it is nudged to wrap up; 15 points more ends the iteration. 0: none.
	MaxContext     int
	ContextNudge   string          // what the nudge says; "": DefaultContextNudge
	ContextWindows receipt.Windows // the models' windows; nil: receipt.DefaultWindows

	Agent         agent.Profile // what the agent's screen shows; generic knows nothing
	DialogTimeout time.Duration // restart when a question waits this long; 0: wait
	LimitWait     time.Duration // wait after a usage limit whose reset time is not written
	TurnHook      bool          // install the agent's own turn-end hook where it has one
	Executable    string        // this program, for hooks that call back
	Path          string        // the PATH the loop was started with: every agent it starts gets it, a resume too
	// AgentHome is the agent's own home, whose configuration a hook overlay
	// keeps (Gemini CLI's .gemini); "": $GEMINI_CLI_HOME, else $HOME.
	AgentHome string

	EndCommand string // run in the pane when the loop ends with its agent gone; "": leave it

	CastLimit int64 // bytes of iteration casts kept (casts/ in the state folder), oldest dropped first; 0: none recorded

	Events func(contract.Event) // told what the loop learns of the agent; nil: nobody listens

	CommandSources []state.CommandSource // where each command (check, on-* command) came from, for status

	// Waits that are not flags; zero (nil) takes the default. Tests shorten them.
	CheckEvery   time.Duration           // with a stream: how often what output cannot tell is checked; 0: 5 s
	BudgetEvery  time.Duration           // how often a running iteration's spend is read; 0: 5 s
	MinLimitWait time.Duration           // the least wait for a usage limit's reset; 0: a minute
	BackoffWait  func(int) time.Duration // the wait after the n-th failure in a row; nil: Backoff
}

// Defaults is a loop's configuration before any flag: the one place run's
// flags, their help, doctor and the demo start from.
func Defaults() Config {
	return Config{
		InactivityTimeout: 180 * time.Second,
		PollInterval:      2 * time.Second,
		Lines:             20,
		ReadyTimeout:      60 * time.Second,
		RestartDelay:      time.Second,
		LimitWait:         30 * time.Minute,
		CheckTimeout:      120 * time.Second,
		CheckOutputChars:  5000,
		CheckFailAction:   FailAppend,
		TurnHook:          true,
		CastLimit:         20 << 20,
		TaskAttempts:      3,
		ReviewCap:         5,
		DiffChars:         20000,
	}
}

// Criterion reports whether the loop has a way to finish other than its limits.
func (c *Config) Criterion() bool {
	return c.DonePattern != nil || c.DoneFile != "" || c.TasksFile != ""
}

// Tunables of the loop that are not flags (yet); the iteration's own are in package iteration.
const (
	killGrace      = 3 * time.Second
	heartbeatEvery = 30 * time.Second // state.json's heartbeat: each save costs an fsync, the most of an idle watcher's CPU
	budgetEvery    = 5 * time.Second  // Config.BudgetEvery's default: a session file can be megabytes, a few seconds late is soon enough
	maxFailures    = 5
	maxLimitWait   = 8 * 24 * time.Hour // a reset further off is misread
)

// minLimitWait (Config.MinLimitWait's default) keeps a misread reset time
// from relaunching into a limit at once.
const minLimitWait = time.Minute

// readyWait says what a starting loop waits for, for status and the pane.
func (c *Config) readyWait() string {
	if c.ReadyPattern != nil {
		return "the agent to be ready (its input box to show)"
	}
	return "the agent to be ready (its screen still a moment)"
}

// program names the agent's program for messages: claude, not the env in
// front of it.
func (c *Config) program() string {
	if w := agent.ParseLaunch(c.Command).Word; w != "" || len(c.Command) == 0 {
		return w
	}
	return c.Command[0]
}
