package agent

import (
	"slices"
	"strings"
	"testing"
)

func TestParseLaunchFindsTheAgentsOwnProgramWord(t *testing.T) {
	tests := []struct {
		name    string
		command []string
		program string
		index   int
		refused string // part of why nothing can be placed; "" when it can
	}{
		{"bare", []string{"claude"}, "claude", 0, ""},
		{"absolute path", []string{"/root/.cache/x/node_modules/.bin/claude", "--model", "opus"}, "claude", 0, ""},
		{"relative path", []string{"./bin/codex"}, "codex", 0, ""},
		{"env VAR=value", []string{"env", "HOME=/h", "ANTHROPIC_BASE_URL=http://127.0.0.1:1", "claude"}, "claude", 3, ""},
		{"env -i -u", []string{"/usr/bin/env", "-i", "-u", "X", "--unset=Y", "-uZ", "PATH=/bin", "claude"}, "claude", 7, ""},
		{"env -C dir --", []string{"env", "-C", "/tmp", "--", "A=1", "gemini"}, "gemini", 5, ""},
		{"env - as -i", []string{"env", "-", "A=1", "codex"}, "codex", 3, ""},
		{"env -S", []string{"env", "-S", "claude --model opus"}, "", 0, "env -S"},
		{"env --split-string", []string{"env", "--split-string=claude -p"}, "", 0, "env -S"},
		{"env unknown option", []string{"env", "--frobnicate", "claude"}, "", 0, "--frobnicate"},
		{"env without a program", []string{"env", "A=1"}, "", 0, "no program"},
		{"exec -a", []string{"exec", "-a", "agent", "-cl", "claude"}, "claude", 4, ""},
		{"command", []string{"command", "-p", "claude"}, "claude", 2, ""},
		{"command -v runs nothing", []string{"command", "-v", "claude"}, "", 0, "runs nothing"},
		{"nice -n N", []string{"nice", "-n", "5", "claude"}, "claude", 3, ""},
		{"nice -N", []string{"nice", "-10", "claude"}, "claude", 2, ""},
		{"nice --adjustment", []string{"nice", "--adjustment=3", "codex"}, "codex", 2, ""},
		{"nohup", []string{"nohup", "claude"}, "claude", 1, ""},
		{"timeout N", []string{"timeout", "3600", "claude"}, "claude", 2, ""},
		{"timeout with options", []string{"timeout", "-s", "INT", "-k5", "--foreground", "1h", "claude"}, "claude", 6, ""},
		{"timeout without a duration's program", []string{"timeout", "3600"}, "", 0, "no program"},
		{"stdbuf", []string{"stdbuf", "-oL", "-e", "0", "claude"}, "claude", 4, ""},
		{"launchers in a row", []string{"env", "A=1", "nice", "-n", "2", "timeout", "1h", "exec", "claude"}, "claude", 8, ""},
		{"npx package", []string{"npx", "@anthropic-ai/claude-code", "--model", "opus"}, "claude", 1, ""},
		{"npx -y package@version", []string{"npx", "-y", "@anthropic-ai/claude-code@2.1.330"}, "claude", 2, ""},
		{"npx --yes codex", []string{"npx", "--yes", "@openai/codex"}, "codex", 2, ""},
		{"npx -p package program", []string{"npx", "-p", "@google/gemini-cli", "gemini"}, "gemini", 3, ""},
		{"npx copilot", []string{"npx", "-y", "@github/copilot@1.0.102", "--model", "gpt-5"}, "copilot", 2, ""},
		{"npx opencode", []string{"npx", "opencode-ai"}, "opencode", 1, ""},
		{"a script in copilot's package", []string{"/home/dev/.npm/lib/node_modules/@github/copilot/npm-loader.js", "--model", "m"},
			"copilot", 0, ""},
		{"a script in codex's package", []string{"/x/node_modules/@openai/codex/bin/codex.js"}, "codex", 0, ""},
		{"a script in another package", []string{"/x/node_modules/left-pad/index.js"}, "", 0, "not the agent's own program"},
		{"npx --package=package program", []string{"npx", "--package=@anthropic-ai/claude-code", "claude"}, "claude", 2, ""},
		{"npx npm config", []string{"npx", "--registry=http://r", "-y", "opencode-ai"}, "opencode", 3, ""},
		{"npx -c runs a line", []string{"npx", "-c", "claude"}, "", 0, "shell line"},
		{"pnpm dlx", []string{"pnpm", "dlx", "@google/gemini-cli"}, "gemini", 2, ""},
		{"bunx", []string{"bunx", "--bun", "@openai/codex@latest"}, "codex", 2, ""},
		{"npm exec --", []string{"npm", "exec", "--", "@anthropic-ai/claude-code"}, "claude", 3, ""},
		{"env then npx", []string{"env", "A=1", "npx", "-y", "@anthropic-ai/claude-code"}, "claude", 4, ""},
		{"unknown wrapper", []string{"mywrap", "claude"}, "", 0, "not the agent's own program"},
		{"an interpreter", []string{"python", "agent.py"}, "", 0, "not the agent's own program"},
		{"a shell line", []string{"/bin/sh", "-c", "claude --model opus"}, "claude", 2, ""},
		{"a shell line with launchers", []string{"sh", "-c", "FOO=1 exec nice -n 5 'claude' --x"}, "claude", 2, ""},
		{"bash -lc", []string{"env", "A=1", "bash", "-lc", "codex"}, "codex", 4, ""},
		{"a shell line in arg mode", []string{"/bin/sh", "-c", `claude --model opus "$@"`, "sh"}, "claude", 2, ""},
		{"a complex shell line", []string{"/bin/sh", "-c", "cd sub && claude"}, "", 2, "uses '&'"},
		{"a shell line with an expansion", []string{"/bin/sh", "-c", "$AGENT"}, "", 2, "uses '$'"},
		{"a shell line with a pipe", []string{"/bin/sh", "-c", "cat PROMPT.md|claude -p"}, "", 2, "uses '|'"},
		{"a shell line with a quoted expansion", []string{"/bin/sh", "-c", `claude "$X"`}, "claude", 2, "inside quotes"},
		{"a shell line with a comment", []string{"/bin/sh", "-c", "claude # hi"}, "claude", 2, "comment"},
		{"a shell line not closed", []string{"/bin/sh", "-c", "claude 'x"}, "claude", 2, "not closed"},
		{"a shell inside a shell line", []string{"/bin/sh", "-c", "sh -c claude"}, "", 2, "shell line of its own"},
		{"a shell running a script", []string{"bash", "run.sh"}, "", 0, "not the agent's own program"},
		{"empty", nil, "", -1, "no program"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := ParseLaunch(tt.command)
			if l.Program != tt.program || l.Index != tt.index {
				t.Errorf("ParseLaunch(%q) = program %q at %d, want %q at %d", tt.command, l.Program, l.Index, tt.program, tt.index)
			}
			if (tt.refused == "") != (l.Refused == "") || !strings.Contains(l.Why(), tt.refused) {
				t.Errorf("ParseLaunch(%q) refused %q, want %q", tt.command, l.Why(), tt.refused)
			}
		})
	}
}

func TestParseLaunchSaysWhenALauncherKeepsTheAgentFromTheTerminal(t *testing.T) {
	tests := []struct {
		command []string
		want    string
	}{
		{[]string{"timeout", "3600", "claude"}, "timeout --foreground"},
		{[]string{"timeout", "-s", "f", "1h", "claude"}, "timeout --foreground"},
		{[]string{"timeout", "--foreground", "3600", "claude"}, ""},
		{[]string{"timeout", "-vf", "-k", "5", "3600", "claude"}, ""},
		{[]string{"nohup", "claude"}, "drop nohup"},
		{[]string{"/bin/sh", "-c", "nohup nice claude"}, "drop nohup"},
		{[]string{"env", "A=1", "nice", "claude"}, ""},
	}
	for _, tt := range tests {
		if got := ParseLaunch(tt.command).NoTerminal; tt.want == "" && got != "" || !strings.Contains(got, tt.want) {
			t.Errorf("ParseLaunch(%q).NoTerminal = %q, want %q", tt.command, got, tt.want)
		}
	}
}

func TestPlaceArgsPutsThemAfterTheAgentsOwnProgramWord(t *testing.T) {
	tests := []struct {
		command, first, last, want []string
	}{
		{[]string{"claude", "--model", "opus"}, []string{"--settings", "/s.json"}, nil,
			[]string{"claude", "--settings", "/s.json", "--model", "opus"}},
		{[]string{"env", "HOME=/h", "claude"}, []string{"--settings", "/s.json"}, nil,
			[]string{"env", "HOME=/h", "claude", "--settings", "/s.json"}},
		{[]string{"npx", "-y", "@openai/codex", "-m", "o3"}, []string{"exec"}, []string{"-"},
			[]string{"npx", "-y", "@openai/codex", "exec", "-m", "o3", "-"}},
		{[]string{"timeout", "-k", "5", "3600", "claude"}, nil, []string{"-p"},
			[]string{"timeout", "-k", "5", "3600", "claude", "-p"}},
		{[]string{"/bin/sh", "-c", "claude --model opus"}, []string{"--settings", "/a b/it's.json"}, nil,
			[]string{"/bin/sh", "-c", `claude '--settings' '/a b/it'\''s.json' --model opus`}},
		{[]string{"/bin/sh", "-c", `ANTHROPIC_MODEL=x nice claude  "--x" "$@"`, "sh"}, []string{"-a"}, []string{"-p"},
			[]string{"/bin/sh", "-c", `ANTHROPIC_MODEL=x nice claude '-a'  "--x" '-p' "$@"`, "sh"}},
		{[]string{"mywrap"}, nil, nil, []string{"mywrap"}}, // nothing to place is always safe
	}
	for _, tt := range tests {
		got, ok := PlaceArgs(tt.command, tt.first, tt.last)
		if !ok || !slices.Equal(got, tt.want) {
			t.Errorf("PlaceArgs(%q, %q, %q) = %q, %v; want %q", tt.command, tt.first, tt.last, got, ok, tt.want)
		}
	}
	for _, command := range [][]string{
		{"mywrap", "--model", "opus"},
		{"env", "-S", "claude"},
		{"/bin/sh", "-c", "cd sub && claude"},
		{"/bin/sh", "-c", "claude; claude"},
	} {
		if got, ok := PlaceArgs(command, []string{"--settings", "f"}, nil); ok || !slices.Equal(got, command) {
			t.Errorf("PlaceArgs(%q) = %q, %v; want it refused and the command unchanged", command, got, ok)
		}
	}
}

// words splits a fuzzed string into command words.
func words(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, "\x00")
}

func FuzzPlaceArgs(f *testing.F) {
	for _, seed := range [][3]string{
		{"claude\x00--model\x00opus", "--settings\x00/s.json", ""},
		{"env\x00-i\x00-u\x00X\x00A=1\x00claude", "--settings\x00f", ""},
		{"npx\x00-y\x00@anthropic-ai/claude-code@1\x00x", "exec", "-"},
		{"nice\x00-n\x005\x00timeout\x00--foreground\x003600\x00codex", "-c\x00notify=[\"a\"]", ""},
		{"/bin/sh\x00-c\x00FOO=1 exec 'claude' \"--x\" y", "--settings\x00it's", "-p"},
		{"/bin/sh\x00-c\x00claude --model opus \"$@\"\x00sh", "", "-p"},
		{"sh\x00-c\x00cd x && claude", "a", ""},
		{"env\x00-S\x00claude", "a", ""},
	} {
		f.Add(seed[0], seed[1], seed[2])
	}
	f.Fuzz(func(t *testing.T, command, first, last string) {
		cmd, fw, lw := words(command), words(first), words(last)
		out, ok := PlaceArgs(cmd, fw, lw)
		if !ok {
			if !slices.Equal(out, cmd) {
				t.Fatalf("refused, yet the command changed: %q -> %q", cmd, out)
			}
			return
		}
		if len(fw)+len(lw) == 0 {
			return
		}
		before, after := ParseLaunch(cmd), ParseLaunch(out)
		if after.Refused != "" || after.Program != before.Program || after.Index != before.Index || after.Word != before.Word {
			t.Fatalf("%q -> %q: the program word moved: %+v, then %+v", cmd, out, before, after)
		}
		if want := slices.Concat(fw, before.Args, lw); !slices.Equal(after.Args, want) {
			t.Fatalf("%q -> %q: the agent's arguments are %q, want %q", cmd, out, after.Args, want)
		}
		i := before.Index
		if !slices.Equal(out[:i], cmd[:i]) {
			t.Fatalf("%q -> %q: the words before the program changed", cmd, out)
		}
		if before.Line {
			if !slices.Equal(out[i+1:], cmd[i+1:]) {
				t.Fatalf("%q -> %q: the words after the shell line changed", cmd, out)
			}
			was, _ := splitLine(cmd[i])
			now, _ := splitLine(out[i])
			for k := range was {
				if was[k].text == before.Word {
					break
				}
				if now[k].text != was[k].text {
					t.Fatalf("%q -> %q: the shell line's words before the program changed", cmd, out)
				}
			}
		}
	})
}

func TestExecLineLetsASimpleCommandReplaceTheShell(t *testing.T) {
	for _, tc := range []struct{ line, want string }{
		{"claude --model opus", "exec claude --model opus"},
		{"  claude", "exec claude"},
		{"FOO=1 BAR='a b' claude -c", "FOO=1 BAR='a b' exec claude -c"},
		{"env X=1 npx -y @anthropic-ai/claude-code", "exec env X=1 npx -y @anthropic-ai/claude-code"},
		{"exec claude", "exec claude"},
		{"cd sub && claude", "cd sub && claude"},
		{"claude; echo done", "claude; echo done"},
		{"claude $FLAGS", "claude $FLAGS"},
		{"FOO=1", "FOO=1"},
		{"", ""},
	} {
		if got := ExecLine(tc.line); got != tc.want {
			t.Errorf("ExecLine(%q) = %q, want %q", tc.line, got, tc.want)
		}
	}
}
