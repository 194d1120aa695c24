package report

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/history"
)

// chromium is Debian's Chromium, or the test is skipped (in -short mode
// too: make unit, it takes half a minute).
func chromium(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("starts Chromium: skipped in -short mode")
	}
	for _, name := range []string{"chromium", "chromium-browser"} {
		if path, err := exec.LookPath(name); err == nil {
			return path
		}
	}
	t.Skip("no chromium on PATH (apt-get install chromium)")
	return ""
}

// proxy is a loopback HTTP proxy the browser is pointed at for every
// address, loopback included: any request the page makes arrives here.
type proxy struct {
	mu   sync.Mutex
	seen []string
	srv  *httptest.Server
}

func newProxy(t *testing.T) *proxy {
	p := &proxy{}
	p.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		p.seen = append(p.seen, r.Method+" "+r.Host+r.URL.Path)
		p.mu.Unlock()
		http.Error(w, "no network for reports", http.StatusForbidden)
	}))
	t.Cleanup(p.srv.Close)
	return p
}

// browserHosts are the hosts the browser reaches for its own services
// (updates, time, accounts), as a blank page shows; a report never names
// them, and a page's own request is to any other host.
var browserHosts = regexp.MustCompile(`^[A-Z]+ ([a-z0-9-]+\.)*(google\.com|gvt1\.com|googleapis\.com|gstatic\.com|googleusercontent\.com)(:443)?(/|$)`)

// pageRequests are the requests seen that are not the browser's own.
func (p *proxy) pageRequests() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var page []string
	for _, r := range p.seen {
		if !browserHosts.MatchString(r) {
			page = append(page, r)
		}
	}
	return page
}

// forget drops the requests to host from what was seen.
func (p *proxy) forget(host string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	var kept []string
	for _, r := range p.seen {
		if !strings.Contains(r, host) {
			kept = append(kept, r)
		}
	}
	p.seen = kept
}

// browse runs headless Chromium on url with extra arguments (--dump-dom,
// --screenshot=…) and returns its standard output.
func browse(t *testing.T, bin, profile string, p *proxy, url string, extra ...string) string {
	t.Helper()
	args := append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
		"--disable-component-update", "--no-first-run", "--user-data-dir=" + profile,
		"--proxy-server=" + p.srv.URL, "--proxy-bypass-list=<-loopback>",
		"--virtual-time-budget=8000"}, extra...)
	cmd := exec.Command(bin, append(args, url)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.Env = append(os.Environ(), "HOME="+profile)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("chromium %s: %v\n%s", url, err, lastLines(errb.String(), 20))
		}
	case <-time.After(90 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("chromium still running after 90s on %s", url)
	}
	return out.String()
}

func lastLines(s string, n int) string {
	ls := strings.Split(s, "\n")
	if len(ls) > n {
		ls = ls[len(ls)-n:]
	}
	return strings.Join(ls, "\n")
}

// A report of a recorded 20-iteration run, opened from a file in a real
// browser that may reach nothing: the timeline is drawn, the cast the
// address names becomes a player showing its iteration's screen, and the
// page asks the network for nothing (a page that does is seen, so the
// check can fail). Screenshots stay in a folder named in the log when the
// test fails.
func TestTheReportRendersInHeadlessChromiumWithoutTheNetwork(t *testing.T) {
	bin := chromium(t)
	root := recordedRun(t, "night", 20, 40)
	run, err := history.Load(root, "night")
	if err != nil {
		t.Fatal(err)
	}
	artifacts, err := os.MkdirTemp("", "ralph-report-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("report and screenshots kept in %s", artifacts)
			return
		}
		_ = os.RemoveAll(artifacts)
	})
	file := filepath.Join(artifacts, "report.html")
	var buf bytes.Buffer
	if _, err := Write(&buf, run, Options{}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	p := newProxy(t)
	profile := t.TempDir()
	// The browser's own requests (its services, not the page's) are what a
	// blank page makes; a page's request is to a host beyond them.
	blank := filepath.Join(artifacts, "blank.html")
	_ = os.WriteFile(blank, []byte(`<!DOCTYPE html><p>blank`), 0o644)
	browse(t, bin, profile, p, "file://"+blank, "--dump-dom")
	if got := p.pageRequests(); len(got) > 0 {
		t.Fatalf("a blank page made requests beyond the browser's own services: %v", got)
	}

	// The proxy sees what a page fetches: a page that loads an image does.
	control := filepath.Join(artifacts, "fetches.html")
	_ = os.WriteFile(control, []byte(`<!DOCTYPE html><img src="http://fetch.example.invalid/x.png">`), 0o644)
	browse(t, bin, profile, p, "file://"+control, "--dump-dom")
	if got := p.pageRequests(); !strings.Contains(strings.Join(got, "\n"), "fetch.example.invalid") {
		t.Fatalf("the proxy did not see a page's request (saw %q): it cannot tell", got)
	}
	p.forget("fetch.example.invalid")

	dom := browse(t, bin, profile, p, "file://"+file+"#cast-3", "--dump-dom")
	_ = os.WriteFile(filepath.Join(artifacts, "dom.html"), []byte(dom), 0o644)
	if got := strings.Count(dom, `<g class="iteration"`); got != 20 {
		t.Errorf("the rendered timeline has %d bars, want 20", got)
	}
	if !strings.Contains(dom, `<svg class="timeline"`) || !strings.Contains(dom, `<polyline class="cost"`) {
		t.Errorf("the rendered page lacks the timeline's SVG")
	}
	player := regexp.MustCompile(`(?s)id="player-3"[^>]*data-made="1"[^>]*>\s*<div class="ap-wrapper".*?class="ap-player`)
	if !player.MatchString(dom) {
		i := strings.Index(dom, `id="player-3"`)
		t.Errorf("iteration 3's player did not render:\n%.600s", dom[max(i, 0):])
	}
	// It shows the iteration's last screen, as a terminal: its own text in rows.
	if !regexp.MustCompile(`class="ap-line"[^>]*>.*ITERATION 3 FINISHED`).MatchString(dom) {
		t.Errorf("iteration 3's player does not show how it ended")
	}
	if strings.Contains(dom, `id="player-4" data-made`) {
		t.Errorf("a cast not asked for was made into a player")
	}
	if got := p.pageRequests(); len(got) > 0 {
		t.Errorf("the report made network requests: %v", got)
	}

	// One screenshot of the whole page, the player made: a window taller
	// than the page, as a headless screenshot of a page scrolled to the
	// cast comes out blank. (Each launch of Chromium is 2 s of CPU.)
	shot := filepath.Join(artifacts, "report.png")
	browse(t, bin, profile, p, "file://"+file+"#cast-3", "--window-size=1280,4400", "--screenshot="+shot)
	if info, err := os.Stat(shot); err != nil || info.Size() < 10<<10 {
		t.Errorf("screenshot %s: %v", shot, err)
	}
	if got := p.pageRequests(); len(got) > 0 {
		t.Errorf("the report made network requests: %v", got)
	}
}
