package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// report on a loop that ran two committed iterations in its worktree: the
// page lands in the state folder (or -o), names the files each iteration
// changed, and status and list say the loop has it.
func TestReportWritesThePageAndStatusAndListSayIt(t *testing.T) {
	c := newCLI(t)
	c.finishRepo("wt")
	c.want([]string{"list"}, 0, "LANDED  REPORT", "")
	page := filepath.Join(c.srv.Dir, "state", "wt", "report.html")
	c.want([]string{"report", "wt"}, 0, "[ralph] wt: report of 2 iterations (2 casts), ", "")
	data, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<title>ralph loop wt: report</title>", `<tr id="it-1" class="ok">`, "<code>work</code>",
		`<details class="cast" id="cast-2" data-n="2">`, "AsciinemaPlayer", "[END] iteration 2"} {
		if !strings.Contains(string(data), want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	c.want([]string{"status", "wt"}, 0, "Report: "+page+" (", "")
	list := c.want([]string{"list"}, 0, "", "")
	if lines := strings.Split(strings.TrimSpace(list), "\n"); len(lines) != 2 || !strings.HasSuffix(lines[1], " no      yes") {
		t.Errorf("list:\n%s", list)
	}
	c.want([]string{"status", "--json", "wt"}, 0, `"report": "`+page+`"`, "")

	other := filepath.Join(c.srv.Dir, "night.html")
	c.want([]string{"report", "wt", "-o", other, "--cast-tail", "1s"}, 0, ": "+other+"\n", "")
	if _, err := os.Stat(other); err != nil {
		t.Error(err)
	}
	c.want([]string{"status", "wt"}, 0, "Report: "+other+" (", "")
	c.want([]string{"report"}, 2, "", "ralph-watch: error: report takes one loop name, got 0 arguments\n")
	c.want([]string{"report", "nosuch"}, 1, "", "no ralph state found for loop 'nosuch'")
}
