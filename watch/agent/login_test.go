package agent

import "testing"

// What each agent showed, run offline against the fake API answering 401
// (Claude Code 2.1.331, Codex 0.169.0, Gemini CLI 0.61.0, OpenCode 1.18.33,
// Copilot CLI 1.0.102), and Claude Code's own sentence without a login.
func TestEachAgentsNotLoggedInSentenceIsRecognised(t *testing.T) {
	for _, c := range []struct{ agent, screen, line string }{
		{"claude", "❯ Read the plan.\n✻ 401 invalid x-api-key · retrying in 23s · attempt 10/10\n──\n❯ \n", "✻ 401 invalid x-api-key · retrying in 23s · attempt 10/10"},
		{"claude", "❯ do it\n  ⎿  Not logged in · Please run /login\n", "⎿  Not logged in · Please run /login"},
		{"claude", "● Please run /login · API Error: 403 Your API key does not have permission to use the specified resource.\n❯ Once fixed, resend your message\n",
			"● Please run /login · API Error: 403 Your API key does not have permission to use the specified resource."},
		{"codex", "› Read the plan.\n■ unexpected status 401 Unauthorized: Incorrect API key provided: fake-***.\n› Ask Codex to do anything\n", "■ unexpected status 401 Unauthorized: Incorrect API key provided: fake-***."},
		{"gemini", " > Read the plan.\n✕ [API Error: {\"error\":{\"code\":401,\"message\":\"Request had invalid authentication credentials.\n", `✕ [API Error: {"error":{"code":401,"message":"Request had invalid authentication credentials.`},
		{"opencode", "  ┃  Incorrect API key provided: fake-***. You can find your API key at https://platform.openai.com/account/api-keys.\n", "Incorrect API key provided: fake-***. You can find your API key at https://platform.openai.com/account/api-keys."},
		{"opencode", "  ┃  Read the plan.   ┃  Incorrect API key provided: fake-***. You can find      ┃  \n", "Incorrect API key provided: fake-***. You can find"},
		{"copilot", " ✗ Authentication failed with provider at http://127.0.0.1:42227/v1 (HTTP 401).\n     Check your COPILOT_PROVIDER_API_KEY.\n", "✗ Authentication failed with provider at http://127.0.0.1:42227/v1 (HTTP 401)."},
	} {
		p, _ := Lookup(c.agent)
		if st, line := p.Classify(ScreenLines(c.screen, 20)); st != StateNoLogin || line != c.line {
			t.Errorf("%s: %v %q, want %v %q", c.agent, st, line, StateNoLogin, c.line)
		}
	}
	// Work that speaks of 401s is no refused key.
	for _, agent := range []string{"claude", "codex", "gemini", "opencode", "copilot"} {
		p, _ := Lookup(agent)
		for _, screen := range []string{"● The handler now answers 401 Unauthorized when the token is missing.\n",
			"$ curl -i localhost:8080\nHTTP/1.1 403 Forbidden\n", "● Fixed the login page: it says \"Please log in\".\n"} {
			if st, _ := p.Classify(ScreenLines(screen, 20)); st == StateNoLogin {
				t.Errorf("%s: %q read as not logged in", agent, screen)
			}
		}
	}
}
