// Package checks answers "what runs between two iterations?": the checks
// run after each one and the feedback they leave for the next prompt, the
// person's on-* commands (--on-iteration-end, --on-done, --on-fail), the
// progress file's sections and the commit's message. The git work (the
// tree's fingerprint, the commit, the loop's own worktree) is package gitwork.
package checks
