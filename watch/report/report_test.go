package report

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/history"
	"github.com/ralph-tmux/ralph.tmux/watch/receipt"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
)

// build writes the report of a recorded run of n iterations and returns the
// page and what it took.
func build(t testing.TB, n, castKB int, opts Options) (string, Page, time.Duration) {
	t.Helper()
	root := recordedRun(t, "night", n, castKB)
	start := time.Now()
	run, err := history.Load(root, "night")
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	page, err := Write(&buf, run, opts)
	if err != nil {
		t.Fatal(err)
	}
	return buf.String(), page, time.Since(start)
}

// notFetching are the only http(s) strings a page may hold: constants in
// the embedded player's code (an SVG namespace, a base for resolving
// relative addresses) that name no resource to fetch.
var notFetching = map[string]bool{"http://www.w3.org/2000/svg": true, "http://localhost/": true}

var anyURL = regexp.MustCompile(`(?i)https?://[^\s"'<>)\\]*`)

// urls are the page's http(s) strings outside notFetching, and those the
// page holds outside the player's script at all.
func urls(page string) (fetching, outsidePlayer []string) {
	for _, u := range anyURL.FindAllString(page, -1) {
		if !notFetching[u] {
			fetching = append(fetching, u)
		}
	}
	outside := strings.Replace(page, playerJS, "", 1)
	outsidePlayer = anyURL.FindAllString(outside, -1)
	return fetching, outsidePlayer
}

func TestAReportOfTwentyIterationsHasTheTimelineTableCastsAndLog(t *testing.T) {
	page, info, took := build(t, 20, 40, Options{})
	t.Logf("20 iterations: %d bytes (%.2f MB), %d casts, %d trimmed, made in %s", info.Bytes, float64(info.Bytes)/(1<<20), info.Casts, info.Trimmed, took)
	if info.Iterations != 20 || info.Casts != 20 {
		t.Errorf("page of %d iterations and %d casts, want 20 and 20", info.Iterations, info.Casts)
	}
	for _, want := range []string{
		"<!DOCTYPE html>", "<title>ralph loop night: report</title>",
		`<section id="timeline">`, `<svg class="timeline"`, `aria-label="timeline of 20 iterations"`,
		`<section id="iterations">`, `<tr id="it-1" class="ok">`, `<tr id="it-7" class="ok">`, `<tr id="it-11" class="timeout">`, `<tr id="it-20" class="done">`,
		`<span class="fail" title="FAIL exit 1: go test ./...`, `<span class="pass" title="pass: go test ./...`,
		`<polyline class="cost"`, `<line class="budget"`, "of a $1.80 budget",
		`<details class="cast" id="cast-3" data-n="3">`, `<script type="application/x-asciicast" id="cast-data-3">`,
		`<section id="log">`, "[DONE] loop complete after 20 iterations reason=done_pattern",
		"AsciinemaPlayer.create", "ralph-watch replay night N",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	// Every iteration is a bar linking to its row, with its story in the tooltip.
	if got := strings.Count(page, `<g class="iteration"`); got != 20 {
		t.Errorf("%d bars in the timeline, want 20", got)
	}
	if !regexp.MustCompile(`<title>iteration 7: \d+m \d+s, ended inactivity_timeout=180s|<title>iteration 7: [^<]*checks 1/2`).MatchString(page) {
		t.Errorf("iteration 7's tooltip does not tell its checks")
	}
	// The casts' "</script>" stays inside them: one closing tag per script.
	if opens, closes := strings.Count(page, "<script"), strings.Count(page, "</script>"); opens != closes || opens != 22 {
		t.Errorf("%d <script and %d </script>, want 22 of each (20 casts, the player, the page's)", opens, closes)
	}
	fetching, outside := urls(page)
	if len(fetching) > 0 || len(outside) > 0 {
		t.Errorf("the page names addresses: %v; outside the player: %v", fetching, outside)
	}
	for _, tag := range []string{"<link", "<img", "<iframe", "src=", "@import", "url("} {
		if strings.Contains(strings.Replace(page, playerJS, "", 1), tag) {
			t.Errorf("the page has %q: it could load something", tag)
		}
	}
	if info.Trimmed != 0 || strings.Contains(page, "are trimmed") {
		t.Errorf("a small run's casts were trimmed (%d)", info.Trimmed)
	}
}

func TestAReportOfTwoHundredIterationsStaysSmallAndSaysItTrimmed(t *testing.T) {
	page, info, took := build(t, 200, 120, Options{})
	t.Logf("200 iterations: %d bytes (%.2f MB), %d casts, %d trimmed, made in %s", info.Bytes, float64(info.Bytes)/(1<<20), info.Casts, info.Trimmed, took)
	if info.Bytes > 5<<20 {
		t.Errorf("the page is %d bytes, over 5 MB", info.Bytes)
	}
	if info.Casts != 200 || info.Trimmed != 200 {
		t.Errorf("%d casts, %d trimmed; want 200 and 200", info.Casts, info.Trimmed)
	}
	if !strings.Contains(page, "To keep this page small, 200 of 200 casts are trimmed to their last 2m0s") {
		t.Errorf("the page does not say its casts are trimmed")
	}
	if !regexp.MustCompile(`Iteration 150 <span class="note">\(the last [0-9ms]+ of [0-9ms]+, \d+ KB of \d+ KB\)`).MatchString(page) {
		t.Errorf("a trimmed cast does not say how much it keeps")
	}
	// A trimmed cast still ends as the iteration ended.
	i := strings.Index(page, `id="cast-data-150"`)
	if i < 0 || !strings.Contains(page[i:i+strings.Index(page[i:], "</script>")], "ITERATION 150 FINISHED") {
		t.Errorf("cast 150 lost its end")
	}
	if fetching, _ := urls(page); len(fetching) > 0 {
		t.Errorf("the page names addresses: %v", fetching)
	}
}

func TestCastTailKeepsOnlyTheEndOfEachCast(t *testing.T) {
	page, info, _ := build(t, 3, 20, Options{CastTail: 30 * time.Second})
	if info.Trimmed != 3 {
		t.Errorf("%d casts trimmed, want 3", info.Trimmed)
	}
	if !strings.Contains(page, "trimmed to their last 30s") {
		t.Errorf("the page does not name the tail it kept")
	}
	// Every event kept is within the last 30 seconds, counted from 0.
	for _, m := range regexp.MustCompile(`(?m)^\[(\d+)\.\d+, `).FindAllStringSubmatch(page, -1) {
		if len(m[1]) > 2 || m[1] > "30" && len(m[1]) == 2 {
			t.Fatalf("an event at %ss in a 30s tail", m[1])
		}
	}
}

func TestTheEmbeddedPlayerIsTheNpmPackagesWithItsLicence(t *testing.T) {
	lic, err := os.ReadFile(filepath.Join("third_party", "asciinema-player", "LICENSE"))
	if err != nil || !strings.Contains(string(lic), "Apache License") {
		t.Errorf("third_party/asciinema-player/LICENSE: %v", err)
	}
	if !strings.Contains(playerJS, "AsciinemaPlayer") || len(playerJS) < 100<<10 || !strings.Contains(playerCSS, ".ap-player") {
		t.Errorf("the embedded player does not look like asciinema-player's bundle (%d bytes of JS)", len(playerJS))
	}
	if !strings.HasPrefix(playerVersion, "asciinema-player ") {
		t.Errorf("third_party/asciinema-player/VERSION: %q", playerVersion)
	}
}

// The page says what iterations.log says: each iteration's duration as
// logged (a receipt is written after the checks, later), checks that never
// failed without a "failed after 0", and an iteration the loop was
// stopped in not coloured as done.
func TestTheReportAgreesWithTheLogAndSaysNothingNonsensical(t *testing.T) {
	root := t.TempDir()
	store := &state.Store{Dir: filepath.Join(root, "w")}
	if err := os.MkdirAll(store.Dir, 0o700); err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 11, 24, 22, 0, 0, 0, time.Local)
	reason := "stopped"
	if err := store.Save(&state.State{WorkerName: "w", CurrentIteration: 3, Status: state.Stopped, Started: state.Stamp(at), ExitReason: &reason}); err != nil {
		t.Fatal(err)
	}
	for _, l := range []struct {
		after         time.Duration
		event, detail string
	}{
		{0, "START", "iteration 1/5"},
		{65 * time.Second, "END", "iteration 1 turn_end duration=1m 5s"},
		{65 * time.Second, "CHECK", `iteration 1 pass exit=0 duration=0s check="true"`},
		{66 * time.Second, "START", "iteration 2/5"},
		{70 * time.Second, "END", "iteration 2 exit=0 duration=4s"},
		{70 * time.Second, "CHECK", `iteration 2 pass exit=0 duration=0s check="true"`},
		{71 * time.Second, "START", "iteration 3/5"},
		{90 * time.Second, "DONE", "loop complete after 3 iterations reason=stopped"},
	} {
		_ = store.Log(at.Add(l.after), l.event, l.detail)
	}
	for _, r := range []receipt.Receipt{
		{Iteration: 1, Started: at, Ended: at.Add(66600 * time.Millisecond)}, // 1m7s: written after the checks
		{Iteration: 2, Started: at.Add(66 * time.Second), Ended: at.Add(70600 * time.Millisecond)},
	} {
		if err := receipt.Append(store.Path(state.ReceiptsFile), r); err != nil {
			t.Fatal(err)
		}
	}
	_, page := pageOf(t, root, "w")
	for _, want := range []string{
		"<dt>checks</dt><dd>all passed after each of 2 iterations</dd>",
		`<tr id="it-1" class="ok"><td>1</td><td>22:00:00</td><td>1m 5s</td>`,
		`<tr id="it-2" class="ok"><td>2</td><td>22:01:06</td><td>4s</td>`,
		`<tr id="it-3" class="unknown">`,
		"<title>iteration 1: 1m 5s, ended turn_end",
		"<th>changes</th><th>committed</th>", // the files of its commit, beside what it changed itself
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	for _, wrong := range []string{"failed after 0", `class="done"`, "1m7s", "turn_end 5s"} {
		if strings.Contains(page, wrong) {
			t.Errorf("the page has %q", wrong)
		}
	}
}
