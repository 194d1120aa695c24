// Package judge is goal mode's judge, apart from the loop's wiring: the
// judge's input, built from evidence the loop gathers (the person's goal,
// the diff of the work, the checks, the plan) and never from the agent's
// screen or words; running the judge, a one-shot program; reading its
// verdict, failing closed; the stalemate of verdicts that stay the same;
// the protected paths the agent cannot change; and the blocks the goal and
// the judge's findings put into the working agent's prompt.
package judge
