package main

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// make install puts the binary (with the version given), the man page and
// the three completions where each shell finds them by itself; make
// uninstall removes every one.
func TestMakeInstallAndUninstall(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("make not installed")
	}
	root, _ := filepath.Abs("../..")
	dest := t.TempDir()
	bin := filepath.Join(t.TempDir(), "ralph-watch")
	makeIt := func(target string) {
		t.Helper()
		cmd := exec.Command("make", "-C", root, target, "DESTDIR="+dest, "PREFIX=/usr", "BIN="+bin, "VERSION=v9.8.7-test")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("make %s: %v\n%s", target, err, out)
		}
	}
	makeIt("install")
	usr := filepath.Join(dest, "usr")
	installed := map[string]string{
		"bin/ralph-watch":                                  "",
		"share/man/man1/ralph-watch.1":                     "",
		"share/bash-completion/completions/ralph-watch":    "bash",
		"share/zsh/site-functions/_ralph-watch":            "zsh",
		"share/fish/vendor_completions.d/ralph-watch.fish": "fish",
	}
	for path, shell := range installed {
		data, err := os.ReadFile(filepath.Join(usr, path))
		if err != nil {
			t.Errorf("not installed: %v", err)
			continue
		}
		if shell == "" {
			continue
		}
		// What the binary prints is what was installed.
		printed, err := exec.Command(filepath.Join(usr, "bin/ralph-watch"), "completion", shell).Output()
		if err != nil || string(printed) != string(data) {
			t.Errorf("ralph-watch completion %s differs from the installed %s (%v)", shell, path, err)
		}
	}
	if out, err := exec.Command(filepath.Join(usr, "bin/ralph-watch"), "version").Output(); err != nil || string(out) != "ralph-watch v9.8.7-test\n" {
		t.Errorf("installed version: %q, %v", out, err)
	}
	if _, err := exec.LookPath("man"); err == nil {
		out, err := exec.Command("man", "-l", "-P", "cat", filepath.Join(usr, "share/man/man1/ralph-watch.1")).CombinedOutput()
		if err != nil || !strings.Contains(string(out), "ralph-watch - loop an AI coding agent") {
			t.Errorf("man -l: %v\n%.300s", err, out)
		}
	}

	// Each shell finds the completion in its standard place on its own.
	s := newShellEnv(t)
	share := "XDG_DATA_DIRS=" + filepath.Join(usr, "share")
	if _, err := os.Stat("/usr/share/bash-completion/bash_completion"); err == nil {
		got := s.shell(t, []string{share}, "bash", "-c", `source /usr/share/bash-completion/bash_completion
_completion_loader ralph-watch; complete -p ralph-watch`)
		if !slices.Equal(got, []string{"complete -F _ralph_watch ralph-watch"}) {
			t.Errorf("bash-completion loaded %q", got)
		}
	} else {
		t.Log("bash-completion not installed: its loader not tried")
	}
	if _, err := exec.LookPath("fish"); err == nil {
		got := s.shell(t, []string{share}, "fish", "-c", `complete -C 'ralph-watch '`)
		if !slices.Contains(got, "completion") || !slices.Contains(got, "run") {
			t.Errorf("fish from vendor_completions.d: %q", got)
		}
	}
	if _, err := exec.LookPath("zsh"); err == nil {
		got := s.shell(t, nil, "zsh", "-f", "-c", "fpath=("+filepath.Join(usr, "share/zsh/site-functions")+" $fpath); autoload -Uz compinit; compinit -u -D; print -r -- $_comps[ralph-watch]")
		if !slices.Equal(got, []string{"_ralph-watch"}) {
			t.Errorf("zsh from site-functions: %q", got)
		}
	}

	makeIt("uninstall")
	err := filepath.WalkDir(dest, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			t.Errorf("left after uninstall: %s", path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// go install MODULE/cmd/ralph-watch@latest works and the binary reports
// the module version: the committed tree is served as v0.1.0 from a local
// proxy, its dependencies from the module cache, into a private module
// cache so nothing outside the test changes.
func TestGoInstallAtLatestReportsTheModuleVersion(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the module from a local proxy")
	}
	root, _ := filepath.Abs("../..")
	if err := exec.Command("git", "-C", root, "rev-parse", "HEAD").Run(); err != nil {
		t.Skip("not a git checkout")
	}
	cache, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	proxy := t.TempDir()
	const mod, ver = "github.com/ralph-tmux/ralph.tmux", "v0.1.0"
	dir := filepath.Join(proxy, mod, "@v")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("git", "-C", root, "archive", "--format=zip", "--prefix="+mod+"@"+ver+"/", "-o", filepath.Join(dir, ver+".zip"), "HEAD").CombinedOutput(); err != nil {
		t.Fatalf("git archive: %v\n%s", err, out)
	}
	gomod, err := exec.Command("git", "-C", root, "show", "HEAD:go.mod").Output()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ver+".mod"), gomod, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ver+".info"), []byte(`{"Version":"`+ver+`","Time":"2026-01-01T00:00:00Z"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "list"), []byte(ver+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	gobin := t.TempDir()
	cmd := exec.Command("go", "install", mod+"/cmd/ralph-watch@latest")
	cmd.Dir = t.TempDir()
	// -trimpath keeps the module cache's folder, new each time, out of what
	// the build cache keys on: a run after the first compiles only the
	// packages that changed. The version go install stamps is the same.
	cmd.Env = append(os.Environ(), "GOBIN="+gobin, "GOMODCACHE="+t.TempDir(), "GOFLAGS=-modcacherw -trimpath", "GOSUMDB=off", "GOTOOLCHAIN=local",
		"GOPROXY=file://"+proxy+",file://"+filepath.Join(strings.TrimSpace(string(cache)), "cache", "download"))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go install: %v\n%s", err, out)
	}
	if out, err := exec.Command(filepath.Join(gobin, "ralph-watch"), "version").Output(); err != nil || string(out) != "ralph-watch "+ver+"\n" {
		t.Errorf("version after go install: %q, %v", out, err)
	}
}
