package main

import (
	"bytes"
	"context"
	"os"
	"runtime/debug"
	"strings"
	"testing"
)

func runInProcess(args ...string) (int, string, string) {
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), args, env{Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: &stderr, Getenv: os.Getenv, Executable: os.Executable})
	return code, stdout.String(), stderr.String()
}

// Every command's -h prints its usage and examples and exits 0; a wrong
// flag or subcommand is one line and exit 2.
func TestEveryCommandHasHelpWithExamplesAndRefusesUnknownFlags(t *testing.T) {
	for path := range binaryTree().flags {
		args := strings.Fields(path)
		code, stdout, stderr := runInProcess(append(args, "-h")...)
		cmdLine := strings.TrimSpace("ralph-watch " + path)
		if code != 0 || stderr != "" || !strings.Contains(stdout, "USAGE\n  "+cmdLine) || !strings.Contains(stdout, "Example") {
			t.Errorf("%s -h: exit %d\nstdout %s\nstderr %s", cmdLine, code, stdout, stderr)
		}
		code, stdout, stderr = runInProcess(append(args, "--bogus")...)
		want := "ralph-watch: error: flag provided but not defined: --bogus (see '" + cmdLine + " -h')\n"
		if code != 2 || stdout != "" || stderr != want {
			t.Errorf("%s --bogus: exit %d, stdout %q, stderr %q; want exit 2 and %q", cmdLine, code, stdout, stderr, want)
		}
	}
	for _, tc := range []struct{ args, want string }{ // flags spelt as typed, never Go's one dash
		{"run --inactivity-timeout 5x", `invalid value "5x" for flag --inactivity-timeout: `},
		{"logs --lines", "flag needs an argument: --lines (see 'ralph-watch logs -h')"},
		{"status --json=maybe", `invalid boolean value "maybe" for --json: `},
		{"run -t", "flag needs an argument: -t (see"},
		{`run --name a"b --max-iterations x`, `invalid value "x" for flag --max-iterations: `},
	} {
		code, stdout, stderr := runInProcess(strings.Fields(tc.args)...)
		if code != 2 || stdout != "" || strings.Count(stderr, "\n") != 1 || !strings.HasPrefix(stderr, "ralph-watch: error: "+tc.want) {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit 2 and one line %q", tc.args, code, stdout, stderr, tc.want)
		}
	}
	code, stdout, stderr := runInProcess("frobnicate")
	if want := "ralph-watch: error: unknown subcommand \"frobnicate\" (see 'ralph-watch -h')\n"; code != 2 || stdout != "" || stderr != want {
		t.Errorf("unknown subcommand: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	code, _, stderr = runInProcess("completion", "tcsh")
	if code != 2 || !strings.Contains(stderr, `no completion for shell "tcsh"`) {
		t.Errorf("completion tcsh: exit %d, stderr %q", code, stderr)
	}
}

func TestVersionIsTheStampedOneElseTheModuleVersion(t *testing.T) {
	mod := func(v string) *debug.BuildInfo { return &debug.BuildInfo{Main: debug.Module{Version: v}} }
	for _, tc := range []struct {
		stamped string
		bi      *debug.BuildInfo
		want    string
	}{
		{"v1.2.3", mod("v0.9.0"), "v1.2.3"},
		{"", mod("v0.9.0"), "v0.9.0"},
		{"", mod("(devel)"), "devel"},
		{"", mod(""), "devel"},
		{"", nil, "devel"},
	} {
		if got := versionOf(tc.stamped, tc.bi); got != tc.want {
			t.Errorf("versionOf(%q, %v) = %q, want %q", tc.stamped, tc.bi, got, tc.want)
		}
	}
	code, stdout, _ := runInProcess("version")
	if code != 0 || stdout != "ralph-watch "+Version()+"\n" {
		t.Errorf("version: exit %d, %q", code, stdout)
	}
}

func TestDashFlagsSpellsTheFlagAsTyped(t *testing.T) {
	for in, want := range map[string]string{
		`invalid value "5x" for flag -inactivity-timeout: bad`:      `invalid value "5x" for flag --inactivity-timeout: bad`,
		`invalid value "a\" for flag -b" for flag -lines: x`:        `invalid value "a\" for flag -b" for flag --lines: x`,
		`invalid boolean value "x" for -json: parse error`:          `invalid boolean value "x" for --json: parse error`,
		"flag provided but not defined: -bogus":                     "flag provided but not defined: --bogus",
		"flag needs an argument: -t":                                "flag needs an argument: -t",
		"bad flag syntax: ---x":                                     "bad flag syntax: ---x",
		`config file: a check-hint line must follow the check line`: `config file: a check-hint line must follow the check line`,
	} {
		if got := dashFlags(in); got != want {
			t.Errorf("dashFlags(%q) = %q, want %q", in, got, want)
		}
	}
}
