package checks

import (
	"context"
	"fmt"
	"os"
	"strconv"
)

// RunOnCommand runs one of the person's on-* commands (--on-iteration-end,
// --on-done, --on-fail) with env, its output appended to the log at logPath
// under header ("hooks" are only the agent's own reports). It says how the
// command failed ("exit=2", "timed out after 1m0s"), "" when it did not.
// It runs to its end even when the loop is interrupted; env's timeout
// bounds it.
func RunOnCommand(env CheckEnv, logPath, header, command string) (failed string, err error) {
	f, err := os.OpenFile(logPath, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return "", err
	}
	defer f.Close()
	fmt.Fprintln(f, header)
	code, timedOut := env.Run(context.Background(), command, f)
	switch {
	case code == 0:
		return "", nil
	case timedOut:
		return "timed out after " + env.Timeout.String(), nil
	}
	return "exit=" + strconv.Itoa(code), nil
}
