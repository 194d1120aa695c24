// Package completions holds the bash, zsh and fish completions of
// ralph-watch, so the binary can print the same files make install installs.
package completions

import (
	_ "embed"
	"fmt"
)

var (
	//go:embed ralph-watch.bash
	bash string
	//go:embed _ralph-watch
	zsh string
	//go:embed ralph-watch.fish
	fish string
)

// Shells are the shells with a completion, in the order they are listed.
var Shells = []string{"bash", "zsh", "fish"}

// Script is the completion script for shell.
func Script(shell string) (string, error) {
	switch shell {
	case "bash":
		return bash, nil
	case "zsh":
		return zsh, nil
	case "fish":
		return fish, nil
	}
	return "", fmt.Errorf("no completion for shell %q (use bash, zsh or fish)", shell)
}
