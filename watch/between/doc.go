// Package between answers "what happens between two iterations?": the
// checks run after each one and the feedback they leave for the next
// prompt, the person's on-* commands (--on-iteration-end, --on-done, --on-fail), the progress
// file's sections, and the git work (the tree's fingerprint, the commit,
// the loop's own worktree).
package between
