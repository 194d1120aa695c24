package fakeapi

// The library's own surface: loopback only, a script changed between
// requests, the request record, the command over it. The protocols are
// tested in protocols_test.go.

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/tmux/tmuxtest"
)

func start(t *testing.T, o Options) *Server {
	t.Helper()
	s, err := Start(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// post sends body to url and returns the response and its whole body.
func post(t *testing.T, url, body string) (*http.Response, string) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(b)
}

func TestStartRefusesAnAddressOffLoopback(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:0", ":0", "example.com:80", "nonsense"} {
		if s, err := Start(Options{Addr: addr}); err == nil {
			_ = s.Close()
			t.Errorf("Start(%q) listened", addr)
		}
	}
}

func TestSetReplyChangesTheNextTurnAndRequestsRecordWhatCame(t *testing.T) {
	log := filepath.Join(t.TempDir(), "api.log")
	s := start(t, Options{Reply: "first", Log: log})
	if !strings.HasPrefix(s.URL, "http://127.0.0.1:") {
		t.Fatalf("URL %q", s.URL)
	}
	msgs := func(text string) string {
		return `{"stream":false,"tools":[{"name":"Bash"}],"messages":[{"role":"user","content":"` + text + `"}]}`
	}
	if _, body := post(t, s.URL+"/v1/messages", msgs("one")); !strings.Contains(body, `"text":"first"`) {
		t.Errorf("first reply %s", body)
	}
	s.SetReply("!limit 60")
	if resp, _ := post(t, s.URL+"/v1/messages", msgs("two")); resp.StatusCode != 429 {
		t.Errorf("after SetReply(!limit) status %d, want 429", resp.StatusCode)
	}
	post(t, s.URL+"/v1/messages", `{"messages":[{"role":"user","content":"title please"}]}`) // a side request: no tools
	reqs := s.Requests()
	if len(reqs) != 3 || reqs[0].Reply != "first" || !strings.HasPrefix(reqs[1].Reply, "!limit ") || reqs[2].N != 3 {
		t.Errorf("requests %+v", reqs)
	}
	if got := s.Prompts(); len(got) != 2 || got[0] != "one" || got[1] != "two" {
		t.Errorf("prompts %q, want the two turns that offered tools", got)
	}
	data, err := os.ReadFile(log)
	if err != nil || strings.Count(string(data), "\n") != 3 {
		t.Errorf("log: %v\n%s", err, data)
	}
}

// One server serves a loop and its judge: "!judge VERDICT" answers a
// judge's request (its input begins with JudgeMarker) with the verdict,
// any other request with the rest of the script, a command included.
func TestAJudgesRequestIsAnsweredWithTheVerdict(t *testing.T) {
	verdict := `{"met": true, "missing": [], "evidence": ["hello.txt says hello"]}`
	s := start(t, Options{Reply: "!judge " + verdict + "\n!bash echo hello > hello.txt\nDone."})
	msgs := func(text string) string {
		b, _ := json.Marshal(map[string]any{"stream": false, "tools": []any{map[string]any{"name": "Bash"}},
			"messages": []any{map[string]any{"role": "user", "content": text}}})
		return string(b)
	}
	_, body := post(t, s.URL+"/v1/messages", msgs(JudgeMarker+" Decide from the evidence below.\n\n## The goal"))
	var got struct {
		Content []struct{ Type, Text string } `json:"content"`
	}
	if err := json.Unmarshal([]byte(body), &got); err != nil || len(got.Content) != 1 || got.Content[0].Text != verdict {
		t.Errorf("the judge's answer %s (%v)", body, err)
	}
	if _, body := post(t, s.URL+"/v1/messages", msgs("do the work")); !strings.Contains(body, `"echo hello \u003e hello.txt"`) && !strings.Contains(body, `echo hello > hello.txt`) {
		t.Errorf("the worker's answer %s, want the command", body)
	}
	if r := s.Requests(); len(r) != 2 || r[0].Reply != verdict || r[1].Reply != "!bash echo hello > hello.txt" {
		t.Errorf("requests %+v", r)
	}
}

func TestAReplyFileIsReadAtEveryRequest(t *testing.T) {
	file := filepath.Join(t.TempDir(), "reply")
	if err := os.WriteFile(file, []byte("from the file"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := start(t, Options{Reply: "from the option", ReplyFile: file})
	req := `{"input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"go"}]}]}`
	if _, body := post(t, s.URL+"/v1/responses", req); !strings.Contains(body, "from the file") {
		t.Errorf("reply %s", body)
	}
	if err := os.WriteFile(file, []byte("changed"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, body := post(t, s.URL+"/v1/responses", req); !strings.Contains(body, "changed") {
		t.Errorf("reply after the file changed %s", body)
	}
}

func TestPlanTurnReadsPaceAndDirectives(t *testing.T) {
	for _, tc := range []struct {
		script string
		result bool
		want   turn
	}{
		{"hello\nworld", false, turn{text: "hello\nworld", delay: time.Second}},
		{"!delay 3s\n!chunk-delay 10ms\nhi", false, turn{text: "hi", delay: 3 * time.Second, chunk: 10 * time.Millisecond}},
		{"!bash touch x\nafter", false, turn{command: "touch x", delay: time.Second}},
		{"!bash touch x\nafter", true, turn{text: "after", delay: time.Second}},
	} {
		got := planTurn(tc.script, tc.result, time.Second, 0)
		if got != tc.want {
			t.Errorf("planTurn(%q, %v) = %+v, want %+v", tc.script, tc.result, got, tc.want)
		}
	}
	lim := planTurn("!limit 120 seven_day", false, 0, 0)
	if !lim.limit || lim.kind != "seven_day" || time.Until(lim.reset) > 121*time.Second || time.Until(lim.reset) < 100*time.Second {
		t.Errorf("limit turn %+v", lim)
	}
}

// testdata/fakeapi prints its URL first, then answers by its options.
func TestTheCommandPrintsItsURLAndAnswersWithItsReply(t *testing.T) {
	bin := tmuxtest.Build(t, "testdata/fakeapi")
	log := filepath.Join(t.TempDir(), "api.log")
	cmd := exec.Command(bin, "-addr", "127.0.0.1:0", "-log", log, "-reply", "from the command")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cmd.Process.Kill()
		_ = cmd.Wait()
	}()
	url, err := bufio.NewReader(out).ReadString('\n')
	url = strings.TrimSpace(url)
	if err != nil || !strings.HasPrefix(url, "http://127.0.0.1:") {
		t.Fatalf("first line %q (%v), want the URL", url, err)
	}
	if _, body := post(t, url+"/v1/messages", `{"stream":false,"messages":[{"role":"user","content":"go"}]}`); !strings.Contains(body, "from the command") {
		t.Errorf("reply %s", body)
	}
	if data, err := os.ReadFile(log); err != nil || !strings.Contains(string(data), `"provider":"anthropic"`) {
		t.Errorf("log: %v\n%s", err, data)
	}
}

func TestUnauthorizedAnswersEachProtocolWithItsAuthError(t *testing.T) {
	s := start(t, Options{Reply: "!unauthorized"})
	anthropic := `{"messages":[{"role":"user","content":"go"}]}`
	openai := `{"input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"go"}]}]}`
	gemini := `{"contents":[{"role":"user","parts":[{"text":"go"}]}]}`
	for _, tc := range []struct{ path, body, want string }{
		{"/v1/messages", anthropic, "authentication_error"},
		{"/v1/responses", openai, "invalid_api_key"},
		{"/v1beta/models/gemini-2.5-pro:generateContent", gemini, "UNAUTHENTICATED"},
	} {
		if resp, body := post(t, s.URL+tc.path, tc.body); resp.StatusCode != 401 || !strings.Contains(body, tc.want) {
			t.Errorf("%s: %d %s, want 401 and %s", tc.path, resp.StatusCode, body, tc.want)
		}
	}
	s.SetReply("!unauthorized 403")
	if resp, body := post(t, s.URL+"/v1/messages", anthropic); resp.StatusCode != 403 || !strings.Contains(body, "permission_error") {
		t.Errorf("403: %d %s", resp.StatusCode, body)
	}
	if reqs := s.Requests(); reqs[0].Reply != "!unauthorized 401" {
		t.Errorf("logged reply %q", reqs[0].Reply)
	}
}
