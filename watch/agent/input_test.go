package agent

import "testing"

func TestShowsInputTellsAPromptWaitingInTheInputBox(t *testing.T) {
	prompt := "fix the next bug in the parser;\nthen run the whole test suite and commit"
	for _, tc := range []struct {
		name, screen string
		want         bool
	}{
		{"in the box as pasted", "> fix the next bug in the parser;\n  then run the whole test suite and commit", true},
		{"wrapped in a frame", "│ ❯ fix the next bug in the parser; then run the whole │\n│ test suite and commit                                │", true},
		{"collapsed by the agent", "❯ [Pasted text #1 +1 lines]", true},
		{"an empty input box", "Welcome\n❯ \n? for shortcuts", false},
		{"only its beginning, another ending", "❯ fix the next bug in the parser; something else", false},
	} {
		if got := ShowsInput(tc.screen, prompt); got != tc.want {
			t.Errorf("%s: ShowsInput = %v, want %v", tc.name, got, tc.want)
		}
	}
	if ShowsInput("anything", "") {
		t.Error("an empty text is never shown")
	}
}
