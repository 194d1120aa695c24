// Package agent answers "what is the agent doing, and how is it started?":
// the profiles of the agents the watcher knows (their screens' patterns,
// prompt modes, turn-end hooks), the signs of readiness no release can
// change, the done-token scanner, the terminal-output normaliser, where
// arguments go in a launch line, the records its hooks leave, and how its
// process tree is ended.
package agent
