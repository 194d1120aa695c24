// Package gitwork is the loop's git work: the one runner every git command
// of the loop, the fan and finish goes through (Git, Run), whether a folder
// is in a repository, the work tree's fingerprint and tree, what changed
// between two trees, the commit after an iteration, and the loop's own
// worktree.
package gitwork
