package doctor

// What makes each agent start offline, with no dialog, against the fake
// API, in a throwaway HOME. The real-agent tests (watch/agents_test.go)
// prepare their agents with it too; see watch/agent/testdata/screens/NOTES.md.

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// Setup is what an agent runs with, besides its HOME.
type Setup struct {
	Env   []string // NAME=value, set in the agent's environment
	Unset []string // removed from it: whatever could send the agent elsewhere
	Last  []string // arguments added at the end of the command
}

// claudeKey is a fake API key; Claude Code approves a key by its last 20 characters.
const claudeKey = "sk-ant-doctor-ralph-watch-0123456789abcdefghij"

// proxies could send any agent's requests off the machine.
var proxies = []string{"HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy", "ALL_PROXY", "all_proxy"}

// Prepare writes the agent's configuration into home for a project in proj
// whose model API is at url, and returns what it must run with. The
// real-agent tests can prepare their agents the same way.
func Prepare(agent, home, proj, url string) (Setup, error) {
	return agentEnv(agent, url), writeConfig(agent, home, proj, url)
}

// agentEnv is what the agent runs with. Agents without a setup get every
// provider's base URL, for what it is worth.
func agentEnv(agent, url string) Setup {
	switch agent {
	case "claude":
		return Setup{
			Env: []string{"ANTHROPIC_API_KEY=" + claudeKey, "ANTHROPIC_BASE_URL=" + url,
				"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1", "DISABLE_TELEMETRY=1"},
			Unset: append([]string{"ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN", "CLAUDE_CONFIG_DIR",
				"CLAUDE_CODE_USE_BEDROCK", "CLAUDE_CODE_USE_VERTEX", "ANTHROPIC_MODEL"}, proxies...),
		}
	case "codex":
		return Setup{
			Env:   []string{"FAKE_OPENAI_API_KEY=sk-doctor-ralph-watch"},
			Unset: append([]string{"CODEX_HOME", "OPENAI_API_KEY", "OPENAI_BASE_URL"}, proxies...),
			Last:  []string{"--no-daemon"}, // its daemon would outlive the pane and the server
		}
	case "gemini":
		return Setup{
			Env: []string{"GEMINI_API_KEY=doctor-ralph-watch-key", "GOOGLE_GEMINI_BASE_URL=" + url},
			Unset: append([]string{"GOOGLE_API_KEY", "GOOGLE_CLOUD_PROJECT", "GOOGLE_GENAI_USE_VERTEXAI",
				"GOOGLE_GENAI_USE_GCA", "GOOGLE_APPLICATION_CREDENTIALS", "GEMINI_MODEL", "GEMINI_CLI_HOME"}, proxies...),
		}
	case "opencode":
		return Setup{
			// npm offline: with a plugin OpenCode installs its plugin SDK
			// into ~/.config/opencode first, and waits for npm's retries.
			Env: []string{"OPENCODE_DISABLE_MODELS_FETCH=1", "OPENCODE_DISABLE_AUTOUPDATE=1", "npm_config_offline=true"},
			Unset: append([]string{"OPENCODE_CONFIG", "OPENCODE_CONFIG_CONTENT", "OPENCODE_CONFIG_DIR",
				"OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY"}, proxies...),
		}
	case "copilot":
		return Setup{
			// Offline, with the fake API as its own model provider (BYOK):
			// no GitHub login, no telemetry, no update.
			Env: []string{"COPILOT_OFFLINE=true", "COPILOT_PROVIDER_BASE_URL=" + url + "/v1",
				"COPILOT_PROVIDER_WIRE_API=responses", "COPILOT_PROVIDER_API_KEY=sk-doctor-ralph-watch",
				"COPILOT_MODEL=gpt-5.2-codex", "COPILOT_AUTO_UPDATE=false"},
			Unset: append([]string{"COPILOT_HOME", "COPILOT_GITHUB_TOKEN", "GH_TOKEN", "GITHUB_TOKEN",
				"COPILOT_PROVIDER_TYPE", "COPILOT_PROVIDER_BEARER_TOKEN", "COPILOT_ALLOW_ALL"}, proxies...),
		}
	}
	return Setup{
		Env:   []string{"ANTHROPIC_BASE_URL=" + url, "OPENAI_BASE_URL=" + url + "/v1", "GOOGLE_GEMINI_BASE_URL=" + url},
		Unset: proxies,
	}
}

// writeConfig writes what makes the agent start with no dialog: onboarding
// done, the project trusted, the key approved, the model provider set.
func writeConfig(agent, home, proj, url string) error {
	projects := []string{proj}
	if real, err := filepath.EvalSymlinks(proj); err == nil && real != proj {
		projects = append(projects, real)
	}
	switch agent {
	case "claude":
		trusted := map[string]any{}
		for _, p := range projects {
			trusted[p] = map[string]any{"hasTrustDialogAccepted": true, "hasCompletedProjectOnboarding": true}
		}
		return writeJSON(filepath.Join(home, ".claude.json"), map[string]any{
			"hasCompletedOnboarding": true,
			"theme":                  "dark",
			"customApiKeyResponses":  map[string]any{"approved": []string{claudeKey[len(claudeKey)-20:]}, "rejected": []string{}},
			"projects":               trusted,
		})
	case "codex":
		config := fmt.Sprintf(`model = "gpt-5.2-codex"
model_provider = "fake"

[model_providers.fake]
name = "Fake"
base_url = "%s/v1"
env_key = "FAKE_OPENAI_API_KEY"
wire_api = "responses"
`, url)
		for _, p := range projects {
			config += fmt.Sprintf("\n[projects.%q]\ntrust_level = \"trusted\"\n", p)
		}
		return writeFile(filepath.Join(home, ".codex", "config.toml"), []byte(config))
	case "gemini":
		trusted := map[string]string{}
		for _, p := range projects {
			trusted[p] = "TRUST_FOLDER"
		}
		err := writeJSON(filepath.Join(home, ".gemini", "settings.json"),
			map[string]any{"security": map[string]any{"auth": map[string]any{"selectedType": "gemini-api-key"}}})
		if err != nil {
			return err
		}
		return writeJSON(filepath.Join(home, ".gemini", "trustedFolders.json"), trusted)
	case "copilot":
		return writeJSON(filepath.Join(home, ".copilot", "config.json"), map[string]any{"trustedFolders": projects})
	case "opencode":
		// The OpenAI provider speaks the Responses API, as Codex does.
		return writeJSON(filepath.Join(home, ".config", "opencode", "opencode.json"), map[string]any{
			"provider": map[string]any{"fake": map[string]any{
				"npm": "@ai-sdk/openai", "name": "Fake",
				"options": map[string]any{"baseURL": url + "/v1", "apiKey": "sk-doctor-ralph-watch"},
				"models":  map[string]any{"gpt-5.2-codex": map[string]any{"name": "fake model"}},
			}},
			"model":       "fake/gpt-5.2-codex",
			"small_model": "fake/gpt-5.2-codex",
			"autoupdate":  false,
			"share":       "disabled",
		})
	}
	return nil
}

func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return writeFile(path, b)
}

func writeFile(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o600)
}
