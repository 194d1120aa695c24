package ended

import (
	"testing"
	"time"
)

func TestForgetCommandUnsetsOnlyTheLoopThatEnded(t *testing.T) {
	got := Forget("%3", time.Unix(1700000000, 0))
	want := `if-shell -F -t %3 "##{==:##{@ralph-ended},1700000000}" "set-option -p -u -t %3 @ralph-state \; set-option -p -u -t %3 @ralph-live \; set-option -p -u -t %3 @ralph-name \; set-option -p -u -t %3 @ralph-iteration \; set-option -p -u -t %3 @ralph-max \; set-option -p -u -t %3 @ralph-status \; set-option -p -u -t %3 @ralph-reason \; set-option -p -u -t %3 @ralph-ended \; set-option -p -u -t %3 @ralph-cost \; set-option -p -u -t %3 @ralph-tasks \; set-option -p -u -t %3 @ralph-beat \; set-option -p -u -t %3 @ralph-attention"`
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}
