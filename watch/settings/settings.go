// Package settings is the loop's settings: one value (Config), filled by
// the command line, read only once the loop starts, read by the loop and
// by each iteration (package iteration) alike, and saved in its record so
// that a resumed loop is held to its first.
package settings

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/agent"
	"github.com/ralph-tmux/ralph.tmux/watch/checks"
	"github.com/ralph-tmux/ralph.tmux/watch/contract"
	"github.com/ralph-tmux/ralph.tmux/watch/judge"
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
	CheckFailAction  string         // prompt.FailAppend, FailPrepend or FailReplace

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

	Goal judge.Settings // goal mode (--goal): the judge asked whether it is met; zero: none

	Budget receipt.Budget // the most the loop may spend (--max-tokens, --max-cost); zero: no limit
	Prices receipt.Prices // what models cost, for receipts; nil: receipt.DefaultPrices

	// MaxContext is the share of the agent's context window (percent) at
	// which it is nudged to wrap up; 15 points more ends the iteration. 0: none.
	MaxContext     int
	ContextNudge   string          // what the nudge says; "": spending.DefaultContextNudge
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

// Criterion reports whether the loop has a way to finish other than its limits.
func (c *Config) Criterion() bool {
	return c.DonePattern != nil || c.DoneFile != "" || c.TasksFile != "" || c.Goal.On()
}

// ReadyWait says what a starting loop waits for, for status and the pane.
func (c *Config) ReadyWait() string {
	if c.ReadyPattern != nil {
		return "the agent to be ready (its input box to show)"
	}
	return "the agent to be ready (its screen still a moment)"
}

// Program names the agent's program for messages: claude, not the env in
// front of it.
func (c *Config) Program() string {
	if w := agent.ParseLaunch(c.Command).Word; w != "" || len(c.Command) == 0 {
		return w
	}
	return c.Command[0]
}

// Settings is the loop's configuration as its record keeps it (state.json's
// settings), one entry per field of Config, so that a resumed loop can be
// held to its first: a field added to Config is in it without a word more.
// Secrets are named, never valued; what is not a plain value (a pattern, a
// profile, a table) is written as its text, or its digest when long.
func (c *Config) Settings() map[string]string {
	out := map[string]string{}
	v, t := reflect.ValueOf(*c), reflect.TypeOf(*c)
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		switch f.Name {
		case "Secrets": // memory only: their names say which the loop needs
			names := make([]string, len(c.Secrets))
			for j, kv := range c.Secrets {
				names[j], _, _ = strings.Cut(kv, "=")
			}
			out[f.Name] = strings.Join(names, " ")
			continue
		}
		s := settingText(v.Field(i))
		if f.Type.Kind() != reflect.String && len(s) > 200 {
			sum := sha256.Sum256([]byte(s))
			s = fmt.Sprintf("sha256:%s (%d bytes)", hex.EncodeToString(sum[:6]), len(s))
		}
		out[f.Name] = s
	}
	return out
}

// settingText writes a value the same way every time: patterns by their
// text, functions by whether they are set, maps in key order.
func settingText(v reflect.Value) string {
	switch x := v.Interface().(type) {
	case *regexp.Regexp:
		if x == nil {
			return "<nil>"
		}
		return x.String()
	case time.Duration:
		return x.String()
	}
	switch v.Kind() {
	case reflect.Func:
		return map[bool]string{true: "<nil>", false: "<func>"}[v.IsNil()]
	case reflect.Pointer:
		if v.IsNil() {
			return "<nil>"
		}
		return "&" + settingText(v.Elem())
	case reflect.Struct:
		parts := make([]string, 0, v.NumField())
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				parts = append(parts, v.Type().Field(i).Name+":"+settingText(v.Field(i)))
			}
		}
		return "{" + strings.Join(parts, " ") + "}"
	case reflect.Slice, reflect.Array:
		parts := make([]string, v.Len())
		for i := range parts {
			parts[i] = settingText(v.Index(i))
		}
		return "[" + strings.Join(parts, " ") + "]"
	case reflect.Map:
		keys := v.MapKeys()
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = settingText(k) + ":" + settingText(v.MapIndex(k))
		}
		slices.Sort(parts)
		return "map[" + strings.Join(parts, " ") + "]"
	}
	return fmt.Sprint(v.Interface())
}

// TakePlaces gives a resumed loop the places its record names: where the
// agent works (its worktree), the plan, prompt, done, pause and progress
// files, the end command, PATH, the commit a fan's task began at and where
// each command came from, as the first start resolved them. A new watcher
// would guess them again from the folder resume was typed in and the
// pane's folder, where the agent may have gone since.
func (c *Config) TakePlaces(st *state.State) {
	if st == nil {
		return
	}
	s := st.Settings
	for name, p := range map[string]*string{
		"Dir": &c.Dir, "Worktree": &c.Worktree, "WorktreeBranch": &c.WorktreeBranch, "WorktreeBase": &c.WorktreeBase,
		"TasksFile": &c.TasksFile, "PromptFile": &c.PromptFile, "DoneFile": &c.DoneFile, "PauseFile": &c.PauseFile,
		"ProgressFile": &c.ProgressFile, "EndCommand": &c.EndCommand, "Path": &c.Path, "TaskBase": &c.TaskBase,
	} {
		if v, ok := s[name]; ok {
			*p = v
		}
	}
	if s == nil { // recorded before the settings were: what the state kept of them
		c.Dir = cmp.Or(st.Dir, c.Dir)
		c.Worktree, c.WorktreeBranch = cmp.Or(st.Worktree, c.Worktree), cmp.Or(st.WorktreeBranch, c.WorktreeBranch)
		c.WorktreeBase, c.PromptFile = cmp.Or(st.WorktreeBase, c.WorktreeBase), cmp.Or(st.PromptFile, c.PromptFile)
		c.Path = cmp.Or(st.Path, c.Path)
		if st.Tasks != nil && c.TasksFile != "" {
			c.TasksFile = cmp.Or(st.Tasks.File, c.TasksFile)
		}
	}
	if st.CommandSources != nil {
		c.CommandSources = st.CommandSources
	}
}
