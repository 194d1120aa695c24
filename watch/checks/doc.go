// Package checks answers "what runs between two iterations?": the checks
// run after each one and the feedback they leave for the next prompt, the
// person's on-* commands (--on-iteration-end, --on-done, --on-fail), the
// progress file's sections, the commit, and the stall's baseline: Work
// (work.go) does them and keeps what one iteration leaves the next. It
// holds no part of the loop: the iteration comes as At, and what is to be
// said, warned, logged or recorded goes back as values (Told, Ran). The
// done and pause files are only looked at here (FileSeen); the loop's gates
// act on them. The git work (the tree's fingerprint, the commit, the
// loop's own worktree, the one git runner) is package gitwork.
package checks
