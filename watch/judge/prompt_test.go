package judge

import (
	"strings"
	"testing"
)

func TestPlacePutsTheGoalAndTheMissingItemsInThePrompt(t *testing.T) {
	note := MissingNote(Verdict{Missing: []string{"a test for empty input", "docs"}}, nil)
	if note != "- a test for empty input\n- docs" {
		t.Errorf("note %q", note)
	}
	tests := []struct {
		name, template, prompt, goal, note, want string
	}{
		{"appended blocks", "Work.", "Work.", "Add a parser.", note,
			"Work.\n\n" + GoalHeading + "\n\nAdd a parser.\n\nThe loop ends when a judge, reading the diff and the checks alone, finds this goal met: your own word that it is done does not end it.\n\n" + MissingHeading + "\n\n" + note},
		{"placeholders", "Goal: {{goal}}\nLeft: {{judge}}", "Goal: {{goal}}\nLeft: {{judge}}", "Add a parser.", "- docs",
			"Goal: Add a parser.\nLeft: - docs"},
		{"no note: no heading, an empty placeholder", "{{goal}} {{judge}}.", "{{goal}} {{judge}}.", "G", "", "G ."},
		{"no goal, no note", "Work.", "Work.", "", "", "Work."},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Place(tc.template, tc.prompt, tc.goal, tc.note); got != tc.want {
				t.Errorf("Place = %q\nwant    %q", got, tc.want)
			}
		})
	}
}

func TestMissingNoteTellsOfAVerdictNotGivenAndOfWhatWasPutBack(t *testing.T) {
	note := MissingNote(Verdict{Reason: ReasonNoJSON}, []string{"check.sh"})
	for _, want := range []string{"no verdict (no JSON)", "put back protected files you changed (check.sh)"} {
		if !strings.Contains(note, want) {
			t.Errorf("note %q has no %q", note, want)
		}
	}
	if got := MissingNote(Verdict{Met: true}, nil); got != "" {
		t.Errorf("a met verdict's note: %q", got)
	}
}
