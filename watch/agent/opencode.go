package agent

import (
	"encoding/json"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
)

// OpenCode (1.18.33) has no hooks of its own but plugins: JavaScript
// modules it loads from the files its config's "plugin" list names, which
// receive every event of its server. The config is read from the person's
// files and, as one more layer, from $OPENCODE_CONFIG_CONTENT (its "plugin"
// lists are joined across layers). So each loop writes a plugin into its
// state folder and names it in that variable: nothing of the person's is
// written, and their own plugins still load.

// OpenCodeConfigVar is the variable whose JSON OpenCode reads as a config layer.
const OpenCodeConfigVar = "OPENCODE_CONFIG_CONTENT"

// OpenCodeEvents are OpenCode's events the plugin reports, and as what.
var OpenCodeEvents = []struct{ Event, Name string }{
	{"session.status busy", HookPromptSubmit}, // it took the prompt
	{"session.idle", HookTurnEnd},             // the main session's turn is over
	{"session.status retry", HookTurnFailed},  // a usage or rate limit it retries (only those)
	{"session.error", HookTurnFailed},         // the turn failed
	{"permission.asked", HookNeedsInput},      // a permission dialog
	{"question.asked", HookNeedsInput},        // its question tool
}

// OpenCodeUsageFile is where the plugin appends what OpenCode's events say
// of each finished model response and tool call (OpenCode keeps them in a
// SQLite database the watcher does not read): one JSON line each, read by
// package receipt. Its path is left in the state folder's transcript file.
const OpenCodeUsageFile = "opencode-usage.jsonl"

// OpenCodePlugin is the plugin's source: each event runs `EXECUTABLE hook
// NAME --state DIR` with the details as JSON on its stdin, as Claude Code's
// hooks have them. Sessions with a parent (subagents) are not the turn, but
// their tokens are counted. state is the loop's state folder.
func OpenCodePlugin(state string, call func(name string) []string) []byte {
	calls := map[string][]string{}
	for _, e := range OpenCodeEvents {
		calls[e.Name] = call(e.Name)
	}
	table, _ := json.Marshal(calls)
	usage, _ := json.Marshal(filepath.Join(state, OpenCodeUsageFile))
	transcript, _ := json.Marshal(filepath.Join(state, "transcript"))
	return fmt.Appendf(nil, `// Written by ralph-watch for one loop: reports OpenCode's events to its watcher.
import { spawn } from "node:child_process";
import { appendFileSync, writeFileSync } from "node:fs";

const calls = %s;
const usage = %s;
const children = new Set();
const counted = new Set();
try { writeFileSync(%s, usage + "\n"); } catch (e) {}

function record(line) {
  try { appendFileSync(usage, JSON.stringify({ timestamp: new Date().toISOString(), ...line }) + "\n"); } catch (e) {}
}

function report(name, input) {
  try {
    const [exe, ...args] = calls[name];
    const p = spawn(exe, args, { stdio: ["pipe", "ignore", "ignore"] });
    p.on("error", () => {});
    p.stdin.on("error", () => {});
    p.stdin.end(JSON.stringify(input || {}));
  } catch (e) {}
}

const limit = /usage limit|rate limit|quota|too many requests|\b429\b/i;

export const RalphWatch = async () => ({
  event: async ({ event }) => {
    const p = event.properties || {};
    if (event.type === "session.created" && p.info && p.info.parentID) children.add(p.info.id);
    if (event.type === "message.updated" && p.info && p.info.role === "assistant" && p.info.time &&
        p.info.time.completed && p.info.tokens && !counted.has(p.info.id)) {
      counted.add(p.info.id);
      const t = p.info.tokens, c = t.cache || {};
      record({ type: "response", model: p.info.modelID || "", input: t.input || 0, output: (t.output || 0) + (t.reasoning || 0),
        cache_read: c.read || 0, cache_write: c.write || 0 });
    }
    if (event.type === "message.part.updated" && p.part && p.part.type === "tool" && p.part.callID && !counted.has(p.part.callID)) {
      counted.add(p.part.callID);
      record({ type: "tool", tool: p.part.tool || "" });
    }
    if (p.sessionID && children.has(p.sessionID)) return;
    switch (event.type) {
      case "session.status": {
        const s = p.status || {};
        if (s.type === "busy") report(%q);
        if (s.type === "retry" && limit.test(s.message || "")) report(%q, { error: "rate_limit", error_details: s.message });
        break;
      }
      case "session.idle":
        report(%q);
        break;
      case "session.error": {
        const e = p.error || {};
        if (e.name === "MessageAbortedError") break;
        const text = (e.data && e.data.message) || e.name || "error";
        report(%q, { error: limit.test(text) ? "rate_limit" : (e.name || "error"), error_details: text });
        break;
      }
      case "permission.asked":
        report(%q, { message: "permission to use " + (p.permission || "a tool") });
        break;
      case "question.asked":
        report(%q, { message: "a question" });
        break;
    }
  },
});
`, table, usage, transcript, HookPromptSubmit, HookTurnFailed, HookTurnEnd, HookTurnFailed, HookNeedsInput, HookNeedsInput)
}

// OpenCodeConfig adds the plugin at path to the config layer in person
// (the value $OPENCODE_CONFIG_CONTENT had; "" for none).
func OpenCodeConfig(person, path string) (string, error) {
	config := map[string]any{}
	if strings.TrimSpace(person) != "" {
		if err := json.Unmarshal(StripJSONComments([]byte(person)), &config); err != nil || config == nil {
			return "", fmt.Errorf("%s is not a JSON object", OpenCodeConfigVar)
		}
	}
	plugins, ok := config["plugin"].([]any)
	if !ok && config["plugin"] != nil {
		return "", fmt.Errorf(`%s: "plugin" is not a list`, OpenCodeConfigVar)
	}
	config["plugin"] = append(plugins, (&url.URL{Scheme: "file", Path: path}).String())
	b, err := json.Marshal(config)
	return string(b), err
}
