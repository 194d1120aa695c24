// Package deliver answers "how does text reach the agent?": whether the
// agent is ready for input yet, and typing text into its pane as a person
// would (a bracketed paste checked to have landed, then Enter until the
// submit takes), for the loop's prompt and for `ralph-watch send`.
package deliver
