package contract

// Exit codes, as the command-line contract fixes them.
const (
	ExitDone        = 0
	ExitFailed      = 1
	ExitUsage       = 2
	ExitLimit       = 3
	ExitInterrupted = 130
	// ExitPause is what an agent exits with to pause the loop instead of a restart.
	ExitPause = 42
)
