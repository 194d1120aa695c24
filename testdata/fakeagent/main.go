// Command fakeagent runs a demo agent script in a terminal, for integration tests.
package main

import (
	"fmt"
	"os"

	"github.com/ralph-tmux/ralph.tmux/watch/demo"
)

func main() {
	if len(os.Args) >= 4 && os.Args[1] == "--settings" { // as Claude Code takes it
		os.Setenv("FAKEAGENT_SETTINGS", os.Args[2])
		os.Args = append(os.Args[:1], os.Args[3:]...)
	}
	if len(os.Args) < 2 { // more arguments (a prompt in arg mode) are ignored
		fmt.Fprintln(os.Stderr, "usage: fakeagent [--settings FILE] SCRIPT-FILE|- [ARG...]")
		os.Exit(2)
	}
	text := os.Getenv("FAKEAGENT_SCRIPT")
	if os.Args[1] != "-" {
		b, err := os.ReadFile(os.Args[1])
		if err != nil {
			fmt.Fprintln(os.Stderr, "fakeagent:", err)
			os.Exit(2)
		}
		text = string(b)
	}
	steps, err := demo.ParseScript(text)
	if err != nil {
		fmt.Fprintln(os.Stderr, "fakeagent:", err)
		os.Exit(2)
	}
	a := &demo.Agent{In: os.Stdin, Out: os.Stdout, Getenv: os.Getenv}
	os.Exit(a.Run(steps))
}
