package state

// The files of a loop's folder, named once: every package reaches them
// through Store.Path with one of these.
const (
	StateFile      = "state.json"           // the swarm schema and the watcher's fields
	StateGood      = "state.good.json"      // a copy of state.json as last saved: Load brings it back when state.json is written over
	LogFile        = "iterations.log"       // one line per event: [START], [END], [CHECK]…
	WatcherLog     = "watcher.log"          // a detached watcher's own output
	RequestFile    = "request"              // what a command asks of the watcher (pause, stop…)
	SteerDir       = "steer"                // notes and new limits for the watcher, one file each (see Steer)
	PromptCopy     = "prompt.txt"           // the prompt as delivered this iteration
	LastScreen     = "last-screen.txt"      // the pane's screen when the loop ended
	OutputFIFO     = "output.fifo"          // the pane's output, through pipe-pane
	LifelineFIFO   = "lifeline.fifo"        // held open by the live watcher: its end tells the tmux server it is gone
	ClaudeSettings = "claude-settings.json" // the hooks given to Claude Code with --settings
	GeminiHome     = "gemini-home"          // Gemini CLI's home for the loop: links to the person's, settings with hooks
	OpenCodePlugin = "opencode-plugin.js"   // the plugin that reports OpenCode's events
	CopilotPlugin  = "copilot-plugin"       // the plugin folder whose hooks report Copilot CLI's turns
	OnCommandsLog  = "hooks.log"            // what the on-* commands (--on-iteration-end, --on-done, --on-fail) printed
	TranscriptFile = "transcript"           // the path of the agent's own session transcript
	CastsDir       = "casts"                // one asciicast v2 file per iteration
	ChecksDir      = "checks"               // each check's output, one file per iteration and check
	AfterExitFile  = "after-exit"           // what the pane runs once the agent of a loop that is over exits
	ReceiptsFile   = "receipts.jsonl"       // one receipt per iteration: tokens, cost, changes
	LockFile       = "lock"                 // held by the live watcher: a dead one never blocks
	WorkTreeIndex  = "worktree.index"       // git's index of the work tree as the receipts last saw it
	RearmLock      = "rearm.lock"           // held while resume or restore brings a loop back, so only one does
	LandedFile     = "landed.json"          // how finish landed the loop's work: merged, rebased, a pull request, a patch
	PRBodyFile     = "pr-body.md"           // the body finish --pr gave the pull request
	ReportFile     = "report.html"          // report's page of the run, unless -o put it elsewhere
	ReportRecord   = "report.json"          // where report last wrote the page, and when
	RunsDir        = "runs"                 // earlier runs of the loop's name, one folder each (see Store.Archive)
	PlanBefore     = "plan.before"          // the plan's bytes before the current iteration (--tasks)
	FollowLog      = "follow.log"           // a detached follow's own output
	FollowLock     = "follow.lock"          // held by the follow at work: one at a time
	FollowFile     = "follow.json"          // what follow saw of the pull request and did: its rounds, the feedback handled, the commits pushed
	ProtectKept    = "protect.json"         // goal mode's start: its base commit and the protected files' bytes, which a resumed loop keeps (--goal)
)
