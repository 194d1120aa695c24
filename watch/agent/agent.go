package agent

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"
)

// Prompt modes: how the prompt reaches the agent.
const (
	ModeType  = "type"  // pasted into an interactive REPL, then Enter
	ModeArg   = "arg"   // appended to the command as its last argument
	ModeStdin = "stdin" // fed to the command's standard input
)

// Profile is what the watcher knows of one agent: how its screen looks in
// each state, and how it takes a prompt. The zero Profile (generic) knows
// nothing, and the loop then relies on exit, inactivity and the done signal.
type Profile struct {
	Name     string
	Commands []string       // program names that select this profile when --agent is not given
	Ready    *regexp.Regexp // its input box is drawn: it takes a prompt
	Busy     *regexp.Regexp // a turn is running
	Finished *regexp.Regexp // a finished turn's summary, e.g. "✻ Worked for 3m 5s"
	// NeedFinished: idle counts only with the finished line on screen (an
	// agent that shows no busy marker while text streams).
	NeedFinished bool
	Dialog       *regexp.Regexp // a question waits for the person, e.g. a permission
	Limit        *regexp.Regexp // a usage or rate limit stopped it
	LoggedOut    *regexp.Regexp // not logged in, or its API refused its key (401, 403): no iteration can work
	Startup      []StartupDialog
	// IdleGrace is how long it must sit idle at its prompt, the screen
	// unchanged, before its turn counts as over (0: never; inactivity decides).
	IdleGrace time.Duration
	// Modes are the prompt modes it supports, with the arguments that make
	// it take the prompt that way; a mode not listed is refused.
	Modes map[string]ModeArgs
	// TurnHook names the agent's own end-of-turn signal the watcher installs.
	TurnHook string
	// DrawsAfterHook: its hook reports the turn's end before its screen
	// shows the last words (OpenCode's plugin runs in its server, not its
	// TUI); after the hook the watcher waits for the Finished line.
	DrawsAfterHook bool
	// SlowStart is how long its start can take on a busy machine, when that
	// is longer than doctor's ready timeout (OpenCode: its server, its
	// database and its plugins first).
	SlowStart time.Duration
	// PromptPrefix is what it puts in front of the prompt it sends the
	// model (Copilot CLI: the date), for doctor's byte-for-byte check.
	PromptPrefix *regexp.Regexp
	// Typewriter: it draws its reply a few letters at a time, each piece
	// placed by a cursor move ("RALPH_DO", then "NE"), so its output
	// stream never holds the done token whole: at the turn's end the
	// token is read from its screen.
	Typewriter bool
}

// ModeArgs are the arguments a prompt mode needs: First right after the
// program (a subcommand), Last just before the prompt (a flag taking it).
type ModeArgs struct{ First, Last []string }

// StartupDialog is a question an agent asks before it takes any prompt.
type StartupDialog struct {
	Pattern *regexp.Regexp
	What    string // what it asks
	Fix     string // what to configure so it is not asked
}

// Turn-end hooks the watcher knows how to install.
const (
	HookClaudeStop  = "claude-stop"     // a Stop hook in a --settings file
	HookCodexNotify = "codex-notify"    // the notify program, by -c notify=[…]
	HookGeminiHome  = "gemini-home"     // hooks in a per-loop overlay of its home, by GEMINI_CLI_HOME
	HookOpenCode    = "opencode-plugin" // a per-loop plugin, by OPENCODE_CONFIG_CONTENT
	HookCopilot     = "copilot-plugin"  // a per-loop plugin with hooks, by --plugin-dir
)

// State is what the screen says the agent is doing.
type State int

// The states an agent's screen can show.
const (
	StateUnknown  State = iota // nothing recognised
	StateWorking               // the busy marker shows
	StateIdle                  // at its prompt, not busy
	StateDialog                // a question waits for the person
	StateLimited               // a usage or rate limit
	StateStartup               // a start-up dialog
	StateFinished              // idle, and the screen shows the turn's end
	StateNoLogin               // not logged in, or its key refused
)

func (s State) String() string {
	return [...]string{"unknown", "working", "idle", "needs-input", "limited", "startup-dialog", "idle", "logged-out"}[s]
}

// Classify reads the agent's state from the last lines of its screen. It
// also returns what matched: the limit text, the start-up dialog's index, or
// the line saying it is not logged in.
// An idle agent whose screen shows a finished turn is StateFinished.
func (p *Profile) Classify(lines []string) (State, string) {
	if p == nil || len(lines) == 0 {
		return StateUnknown, ""
	}
	text := strings.Join(lines, "\n")
	for i, d := range p.Startup {
		if d.Pattern.MatchString(text) {
			return StateStartup, string(rune('0' + i))
		}
	}
	if p.LoggedOut != nil {
		if m := p.LoggedOut.FindString(text); m != "" {
			return StateNoLogin, lineOf(text, m)
		}
	}
	if p.Limit != nil {
		if m := p.Limit.FindString(text); m != "" {
			return StateLimited, limitLine(text, m)
		}
	}
	switch {
	case p.Dialog != nil && p.Dialog.MatchString(text), WaitsForKey(lines):
		return StateDialog, ""
	case p.Busy != nil && p.Busy.MatchString(text):
		return StateWorking, ""
	case p.Ready != nil && p.Ready.MatchString(text):
		if p.Finished != nil && p.Finished.MatchString(text) {
			return StateFinished, ""
		}
		if p.NeedFinished {
			return StateUnknown, ""
		}
		return StateIdle, ""
	}
	return StateUnknown, ""
}

// limitLine widens a limit match to its whole line and the next, where the
// reset time is written.
func limitLine(text, match string) string {
	i := strings.Index(text, match)
	start := strings.LastIndexByte(text[:i], '\n') + 1
	end := i + len(match)
	for n := 0; n < 2 && end < len(text); n++ {
		next := strings.IndexByte(text[end+1:], '\n')
		if next < 0 {
			end = len(text)
			break
		}
		end += 1 + next
	}
	return text[start:end]
}

// lineOf is the line of text that holds match, trimmed, within the box
// (│, ┃) a TUI may draw it in.
func lineOf(text, match string) string {
	i := strings.Index(text, match)
	start := strings.LastIndexAny(text[:i], "\n│┃") + 1
	if start > 0 && text[start-1] != '\n' {
		start += len("│") - 1 // both are three bytes
	}
	end := strings.IndexAny(text[i:], "\n│┃")
	if end < 0 {
		return strings.TrimSpace(text[start:])
	}
	return strings.TrimSpace(text[start : i+end])
}

// StartupAdvice is the message for a start-up dialog Classify found.
func (p *Profile) StartupAdvice(index string) (what, fix string) {
	if len(index) != 1 || int(index[0]-'0') >= len(p.Startup) {
		return "a question", "answer it once by hand"
	}
	d := p.Startup[index[0]-'0']
	return d.What, d.Fix
}

// Knows reports whether the profile can tell states apart on screen.
func (p *Profile) Knows() bool {
	return p != nil && (p.Busy != nil || p.Dialog != nil || p.Limit != nil || p.LoggedOut != nil || len(p.Startup) > 0)
}

// CommandFor adds the arguments a prompt mode needs right after the agent's
// own program word (and at the end), unless the command already has them.
// It fails when they are needed and cannot be placed safely.
func (p *Profile) CommandFor(mode string, command []string) ([]string, error) {
	m := p.Modes[mode]
	if len(m.First)+len(m.Last) == 0 || len(command) == 0 || p.Has(command, m.First) || p.Has(command, m.Last) {
		return command, nil
	}
	out, why := p.Place(command, m.First, m.Last)
	if why != "" {
		need := strings.Join(slices.Concat([]string{p.Name}, m.First, []string{"…"}, m.Last), " ")
		return nil, fmt.Errorf("--prompt-mode %s needs %s, and that cannot be added to %s: write it into the command yourself, or run %s directly",
			mode, need, why, p.Name)
	}
	return out, nil
}

// has reports whether the agent's own arguments include one of words
// (or --word=value).
func (p *Profile) Has(command, words []string) bool {
	args := ParseLaunch(command).Args
	for _, w := range words {
		for _, a := range args {
			if a == w || strings.HasPrefix(w, "--") && strings.HasPrefix(a, w+"=") {
				return true
			}
		}
	}
	return false
}

// Supports reports whether the agent takes prompts in mode.
func (p *Profile) Supports(mode string) bool {
	_, ok := p.Modes[mode]
	return ok
}

// Agent returns the named profile (a fresh copy the caller may change).
func Lookup(name string) (Profile, bool) {
	p, ok := profiles[name]
	return p, ok
}

// Names lists the known profiles.
func Names() []string {
	var names []string
	for n := range profiles {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Guess picks a profile by the program a command runs, past any
// launcher: "claude", "/usr/bin/codex", "env X=1 gemini -m y",
// "npx @anthropic-ai/claude-code", a shell line "nice claude --model opus".
func Guess(command []string) string {
	if program := ParseLaunch(command).Program; program != "" {
		for name, p := range profiles {
			if slices.Contains(p.Commands, program) {
				return name
			}
		}
	}
	return "generic"
}

var allModes = map[string]ModeArgs{ModeType: {}, ModeArg: {}, ModeStdin: {}}

// profiles hold what the agents' screens show; the patterns come from the
// screens in watch/agent/testdata/screens (versions and notes in NOTES.md there).
var profiles = map[string]Profile{
	"generic": {Name: "generic", Modes: allModes},
	"claude": { // Claude Code 2.1.197 and 2.1.330
		Name:     "claude",
		Commands: []string{"claude", "claude-code"},
		// Idle, its footer shows the shortcuts hint or the permission mode
		// ("⏵⏵ auto mode on", "⏵⏵ bypass permissions on", "⏸ plan mode on").
		Ready: regexp.MustCompile(`(?m)^\s+\? for shortcuts|^\s+(⏵⏵|⏸) [\pL ]+ on\b`),
		Busy:  regexp.MustCompile(`esc to interrupt`),
		// "✻ Worked for 3m 5s"; 2.1.330 adds " · done 3:29 PM".
		Finished: regexp.MustCompile(`(?m)^\s*✻ \pL+ for (\d+h )?(\d+m )?\d+s( · .*)?\s*$`),
		Dialog: regexp.MustCompile(`(?m)^\s*Do you want to (proceed|make this edit|create|allow|run)[^?]*\?|` +
			`^\s*Would you like to proceed\?`),
		Limit: regexp.MustCompile(`You've hit your [\w ]*limit|usage limit reached|` +
			`Your limit will reset|API Error: .*\(429\)|rate_limit_error`),
		// "Not logged in · Please run /login"; a refused key: "✻ 401 invalid
		// x-api-key · retrying in 23s", "Please run /login · API Error: 403 …".
		LoggedOut: regexp.MustCompile(`Please run /login|API Error: 40[13]\b|(?m)^\W*40[13] .*(x-api-key|· retrying in)`),
		Startup: []StartupDialog{
			{regexp.MustCompile(`(?i)do you trust the files in this folder|Is this a project you created or one you trust|Yes, I trust this folder`),
				"whether to trust the folder",
				"start claude once in that folder and accept, or set hasTrustDialogAccepted for the project in ~/.claude.json"},
			{regexp.MustCompile(`(?i)choose the text style|Unable to connect to Anthropic services`),
				"to finish its first start (onboarding)",
				"start claude once by hand, online, to finish its first-start setup"},
			{regexp.MustCompile(`(?i)select login method|Claude account with subscription|Anthropic Console account`),
				"to log in",
				"run claude once and log in, or set ANTHROPIC_API_KEY"},
			{regexp.MustCompile(`Detected a custom API key|Do you want to use this API key`),
				"whether to use the API key in the environment",
				"start claude once and approve the key (its default answer is No)"},
			{regexp.MustCompile(`Bypass Permissions mode`),
				"to confirm bypass-permissions mode",
				"start claude --dangerously-skip-permissions once by hand and accept, or set skipDangerousModePermissionPrompt in ~/.claude/settings.json"},
		},
		IdleGrace: 3 * time.Second,
		Modes: map[string]ModeArgs{ModeType: {}, ModeArg: {Last: []string{"-p"}},
			ModeStdin: {Last: []string{"-p"}}},
		TurnHook: HookClaudeStop,
	},
	"codex": { // Codex 0.169.0
		Name:     "codex",
		Commands: []string{"codex"},
		Ready:    regexp.MustCompile(`(?m)^› Ask Codex to do anything|\? for shortcuts`),
		Busy:     regexp.MustCompile(`esc to interrupt`),
		// Codex hides its busy line while text streams: only this line says the turn is over.
		Finished:     regexp.MustCompile(`(?m)^\s+Worked for .+ • \d{1,2}:\d{2}\s*$`),
		NeedFinished: true,
		Dialog:       regexp.MustCompile(`Would you like to (run|make|apply) the following|Press enter to confirm or esc to cancel`),
		Limit:        regexp.MustCompile(`You[’']ve hit your usage limit|usage limit reached|Approaching rate limits`),
		LoggedOut:    regexp.MustCompile(`unexpected status 40[13] (Unauthorized|Forbidden)`), // "■ unexpected status 401 Unauthorized: Incorrect API key provided…"
		Startup: []StartupDialog{
			{regexp.MustCompile(`(?i)sign in with ChatGPT|Provide your own API key`),
				"to sign in", "run codex login once, or configure a model provider with an API key"},
			{regexp.MustCompile(`Trust this folder\?|Do you trust the contents of this directory`),
				"whether to trust the folder",
				"start codex once in that folder and trust it, or set trust_level = \"trusted\" for the project in ~/.codex/config.toml"},
			{regexp.MustCompile(`Hooks need review`),
				"to review its hooks",
				"start codex once and trust its hooks, or pass --dangerously-bypass-hook-trust"},
		},
		IdleGrace: 3 * time.Second,
		Modes: map[string]ModeArgs{ModeType: {}, ModeArg: {First: []string{"exec"}},
			ModeStdin: {First: []string{"exec"}, Last: []string{"-"}}},
		TurnHook: HookCodexNotify,
	},
	"gemini": { // Gemini CLI 0.61.0
		Name:     "gemini",
		Commands: []string{"gemini"},
		Ready:    regexp.MustCompile(`(?m)^ >\s+Type your message`),
		Busy:     regexp.MustCompile(`\(esc to cancel, (\d+m )?\d+s\)`),
		Dialog:   regexp.MustCompile(`Allow execution of \[|Apply this change\?|Do you want to proceed\?`),
		Limit: regexp.MustCompile(`Usage limit reached for \S+\.|exhausted your daily quota|` +
			`reached your daily .* quota|Quota exceeded|RESOURCE_EXHAUSTED|Individual quota reached`),
		// `✕ [API Error: {"error":{"code":401,…"status":"UNAUTHENTICATED"}}]`; a bad key is a 400 that says so.
		LoggedOut: regexp.MustCompile(`API Error: \{"error":\{"code":40[13]\b|API key not valid\. Please pass a valid API key`),
		Startup: []StartupDialog{
			{regexp.MustCompile(`How would you like to authenticate|Enter Gemini API Key`),
				"to pick a way to log in",
				"set GEMINI_API_KEY and security.auth.selectedType in ~/.gemini/settings.json, or run gemini once and log in"},
			{regexp.MustCompile(`Do you trust the files in this folder\?`),
				"whether to trust the folder", "start gemini once in that folder and trust it (~/.gemini/trustedFolders.json)"},
		},
		IdleGrace: 3 * time.Second,
		Modes: map[string]ModeArgs{ModeType: {}, ModeArg: {Last: []string{"-p"}},
			ModeStdin: {}},
		TurnHook: HookGeminiHome,
	},
	"copilot": { // GitHub Copilot CLI 1.0.102, offline with its own model provider (BYOK)
		Name:     "copilot",
		Commands: []string{"copilot"},
		// Idle, its footer lists its commands; busy, a "◉ Working" line stands there instead.
		Ready:  regexp.MustCompile(`/ commands · \? help`),
		Busy:   regexp.MustCompile(`(?m)^\s*\S Working\b`),
		Dialog: regexp.MustCompile(`Do you want to (run this command|make this edit|create|allow|proceed)[^?]*\?`),
		// It retries a refused request silently ("◉ Working"): only its
		// errorOccurred hook tells of a limit; nothing on screen to read.
		// A refused key it says: "✗ Authentication failed with provider at URL (HTTP 401)."
		LoggedOut: regexp.MustCompile(`✗ Authentication failed\b|(?m)^\W*✗ .*\(HTTP 40[13]\)`),
		Startup: []StartupDialog{
			{regexp.MustCompile(`Confirm folder trust|Do you trust the files in this folder\?`),
				"whether to trust the folder",
				"start copilot once in that folder and trust it for future sessions (~/.copilot/config.json, trustedFolders)"},
		},
		IdleGrace: 3 * time.Second,
		Modes: map[string]ModeArgs{ModeType: {}, ModeArg: {Last: []string{"-p"}},
			ModeStdin: {}},
		TurnHook: HookCopilot,
		// A first start in a new home shows "● Loading:" where the footer goes
		// for 10 s and more (it unpacks itself into ~/.cache/copilot first).
		SlowStart:      40 * time.Second,
		DrawsAfterHook: true, // agentStop comes before the reply's last lines are drawn
		Typewriter:     true,
		PromptPrefix:   regexp.MustCompile(`^<current_datetime>[^<]*</current_datetime>\n\n`),
	},
	"opencode": { // OpenCode 1.18.33
		Name:     "opencode",
		Commands: []string{"opencode"},
		// Its footer, idle or busy: the busy one also reads "esc interrupt".
		Ready: regexp.MustCompile(`(?m)ctrl\+p commands\s*$`),
		Busy:  regexp.MustCompile(`esc interrupt`),
		// "▣  Build · gpt-5.2-codex · 4.6s" under the reply.
		Finished: regexp.MustCompile(`(?m)^\s*▣ +\S.* · \d[\dhms. ]*s\s*$`),
		Dialog:   regexp.MustCompile(`△ Permission required|Allow once +Allow always +Reject`),
		// It retries a refused request, showing the API's message in its status line.
		Limit: regexp.MustCompile(`(?i)(usage limit|rate limit|quota|too many requests)[^\n]*\[retrying in `),
		// A refused key: the provider's own message, in its error box.
		LoggedOut: regexp.MustCompile(`Incorrect API key provided|invalid x-api-key|API key not valid|` +
			`Your API key does not have permission|Request had invalid authentication credentials`),
		IdleGrace: 3 * time.Second,
		// `opencode run "PROMPT"` wraps a prompt holding a space in double quotes;
		// on stdin it takes it as is.
		Modes:          map[string]ModeArgs{ModeType: {}, ModeArg: {First: []string{"run"}}, ModeStdin: {First: []string{"run"}}},
		TurnHook:       HookOpenCode,
		DrawsAfterHook: true,
		SlowStart:      45 * time.Second,
	}, // Not checked against the real programs (they need an account to start):
	// only the markers their documentation and issue threads show.
	"amp": {
		Name:     "amp",
		Commands: []string{"amp"},
		Busy:     regexp.MustCompile(`(?i)esc to (cancel|interrupt)`),
		Limit:    regexp.MustCompile(`(?i)(insufficient credit|out of credits|rate limit)`),
		Modes: map[string]ModeArgs{ModeType: {}, ModeArg: {Last: []string{"-x"}},
			ModeStdin: {Last: []string{"-x"}}},
	},
	"aider": {
		Name:     "aider",
		Commands: []string{"aider"},
		Ready:    regexp.MustCompile(`(?m)^\S*> $`),
		Dialog:   regexp.MustCompile(`\(Y\)es/\(N\)o`),
		Limit:    regexp.MustCompile(`(?i)(RateLimitError|rate limit|quota)`),
		Modes:    map[string]ModeArgs{ModeType: {}, ModeArg: {Last: []string{"--message"}}},
	},
}
