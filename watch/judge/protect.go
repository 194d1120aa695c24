package judge

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// OwnFolder is the loop's folder in the work, protected by default.
const OwnFolder = ".ralph/"

// unprotected are the parts of OwnFolder that are the loop's own work, not
// the person's: its worktrees, and the notes a review iteration writes.
var unprotected = []string{".ralph/worktrees/", ".ralph/review.md"}

// Protected is the list of what the agent may not change, as patterns
// relative to dir: by default (unless noDefault) OwnFolder and every word of
// a check command that names a file in dir ("sh check.sh" → check.sh), then
// the person's --protect globs.
func Protected(dir string, checkCommands, globs []string, noDefault bool) []string {
	var out []string
	add := func(p string) {
		if p != "" && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	if !noDefault {
		add(OwnFolder)
		for _, c := range checkCommands {
			for _, f := range FilesNamed(dir, c) {
				add(f)
			}
		}
	}
	for _, g := range globs {
		add(filepath.ToSlash(strings.TrimPrefix(g, "./")))
	}
	return out
}

// FilesNamed are the words of command (and the values of its --flag=value
// words) that name a regular file inside dir, relative to dir.
func FilesNamed(dir, command string) []string {
	var out []string
	for _, w := range strings.Fields(command) {
		w = strings.Trim(w, `"'`)
		for _, word := range []string{w, afterEquals(w)} {
			if rel, ok := fileIn(dir, word); ok && !slices.Contains(out, rel) {
				out = append(out, rel)
			}
		}
	}
	return out
}

// afterEquals is the value of a --flag=value word ("" for any other word).
func afterEquals(w string) string {
	if _, v, ok := strings.Cut(w, "="); ok && strings.HasPrefix(w, "-") {
		return v
	}
	return ""
}

// fileIn is word, relative to dir, when it names a regular file inside dir.
func fileIn(dir, word string) (string, bool) {
	if word == "" || strings.ContainsAny(word, "*?[$`") {
		return "", false
	}
	p := word
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, p)
	}
	rel, err := filepath.Rel(dir, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	if info, err := os.Stat(p); err != nil || !info.Mode().IsRegular() {
		return "", false // a folder, a program's name, a package pattern
	}
	return filepath.ToSlash(rel), true
}

// Matches reports whether rel (slash-separated, relative to the folder)
// is one of patterns: a pattern ending in "/" holds everything under it, a
// pattern matches the path itself or a folder above it, "*" and "?" stay
// within a name and "**" spans folders.
func Matches(patterns []string, rel string) bool {
	for _, p := range patterns {
		if matchesOne(p, rel) {
			return true
		}
	}
	return false
}

func matchesOne(pattern, rel string) bool {
	pattern = strings.TrimSuffix(pattern, "/")
	parts := strings.Split(rel, "/")
	for n := len(parts); n >= 1; n-- { // the path, or a folder above it
		if globMatch(strings.Split(pattern, "/"), parts[:n]) {
			return true
		}
	}
	return false
}

// globMatch matches path names against pattern names, "**" any number of them.
func globMatch(pattern, names []string) bool {
	if len(pattern) == 0 {
		return len(names) == 0
	}
	if pattern[0] == "**" {
		for i := 0; i <= len(names); i++ {
			if globMatch(pattern[1:], names[i:]) {
				return true
			}
		}
		return false
	}
	if len(names) == 0 {
		return false
	}
	ok, err := path.Match(pattern[0], names[0])
	return ok && err == nil && globMatch(pattern[1:], names[1:])
}

// Snapshot is the bytes of every protected file when the loop began.
type Snapshot struct {
	Dir      string
	Patterns []string
	Files    map[string]File // by path relative to Dir, slash-separated
}

// File is one protected file's bytes and mode, or the target of a
// symbolic link standing there.
type File struct {
	Data []byte
	Mode fs.FileMode
	Link string
}

// read is what stands at full now; ok false when nothing a snapshot can
// hold does (nothing, or a folder).
func read(full string) (File, bool) {
	info, err := os.Lstat(full)
	switch {
	case err != nil:
		return File{}, false
	case info.Mode()&fs.ModeSymlink != 0:
		target, err := os.Readlink(full)
		return File{Link: target}, err == nil
	case !info.Mode().IsRegular():
		return File{}, false
	}
	data, err := os.ReadFile(full)
	return File{Data: data, Mode: info.Mode().Perm()}, err == nil
}

// same reports whether two files hold the same.
func (f File) same(g File) bool {
	return f.Link == g.Link && f.Mode == g.Mode && bytes.Equal(f.Data, g.Data)
}

// Take reads every file in dir the patterns protect.
func Take(dir string, patterns []string) (Snapshot, error) {
	s := Snapshot{Dir: dir, Patterns: patterns, Files: map[string]File{}}
	files, err := s.walk()
	if err != nil {
		return s, err
	}
	for _, rel := range files {
		if f, ok := read(filepath.Join(dir, filepath.FromSlash(rel))); ok {
			s.Files[rel] = f
		}
	}
	return s, nil
}

// Changed are the protected paths whose bytes differ from the snapshot
// now: changed, removed, made, or no longer a plain file. It changes nothing.
func (s Snapshot) Changed() ([]string, error) {
	now, err := s.walk()
	if err != nil {
		return nil, err
	}
	var changed []string
	for _, rel := range now {
		if _, ok := s.Files[rel]; !ok {
			changed = append(changed, rel) // made by the agent
		}
	}
	for rel, f := range s.Files {
		if now, ok := read(filepath.Join(s.Dir, filepath.FromSlash(rel))); !ok || !now.same(f) {
			changed = append(changed, rel)
		}
	}
	slices.Sort(changed)
	return slices.Compact(changed), nil
}

// Restore puts back every protected path the agent changed: the snapshot's
// bytes and mode for a file it had, nothing for a file the agent made. It
// returns the paths it put back, for the [PROTECT] lines.
func (s Snapshot) Restore() ([]string, error) {
	changed, err := s.Changed()
	if err != nil {
		return nil, err
	}
	var put []string
	for _, rel := range changed {
		full := filepath.Join(s.Dir, filepath.FromSlash(rel))
		if err := s.putBack(rel, full); err != nil {
			return put, fmt.Errorf("put back %s: %w", rel, err)
		}
		put = append(put, rel)
	}
	return put, nil
}

// putBack makes full what the snapshot holds of rel: its file or link
// written anew in place of whatever stands there, or nothing.
func (s Snapshot) putBack(rel, full string) error {
	if err := os.RemoveAll(full); err != nil {
		return err
	}
	f, had := s.Files[rel]
	if !had {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		return err
	}
	if f.Link != "" {
		return os.Symlink(f.Link, full)
	}
	if err := os.WriteFile(full, f.Data, f.Mode); err != nil {
		return err
	}
	return os.Chmod(full, f.Mode) // past the umask
}

// RestoreMessage is a [PROTECT] line after the tag.
func RestoreMessage(iteration int, rel string) string {
	return fmt.Sprintf("iteration %d put back %s: a protected path the agent changed", iteration, rel)
}

// walk lists the protected entries in Dir, slash-separated and relative:
// regular files and anything else that stands where one could (a link,
// a folder named as a file), never inside .git or the loop's own parts.
func (s Snapshot) walk() ([]string, error) {
	var out []string
	if len(s.Patterns) == 0 {
		return nil, nil
	}
	err := filepath.WalkDir(s.Dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if os.IsNotExist(err) {
				return nil
			}
			return err
		}
		rel, _ := filepath.Rel(s.Dir, p)
		rel = filepath.ToSlash(rel)
		if rel == "." {
			return nil
		}
		if d.IsDir() {
			if d.Name() == ".git" || Matches(unprotected, rel) || !mayHold(s.Patterns, rel) {
				return filepath.SkipDir
			}
			if !Matches(s.Patterns, rel) || !isFilePattern(s.Patterns, rel) {
				return nil
			}
		}
		if Matches(s.Patterns, rel) && !Matches(unprotected, rel) {
			out = append(out, rel)
		}
		if d.IsDir() {
			return filepath.SkipDir // a folder where a protected file was: it goes whole
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read protected files: %w", err)
	}
	return out, nil
}

// isFilePattern reports whether a pattern names rel itself as a file (no
// trailing "/", no "**"), so that a folder standing there is a change.
func isFilePattern(patterns []string, rel string) bool {
	for _, p := range patterns {
		if !strings.HasSuffix(p, "/") && !strings.Contains(p, "**") && globMatch(strings.Split(p, "/"), strings.Split(rel, "/")) {
			return true
		}
	}
	return false
}

// mayHold reports whether folder rel may hold a protected path: it is one
// or above one, or a pattern can match below it.
func mayHold(patterns []string, rel string) bool {
	names := strings.Split(rel, "/")
	for _, p := range patterns {
		pp := strings.Split(strings.TrimSuffix(p, "/"), "/")
		if prefixMatch(pp, names) {
			return true
		}
	}
	return false
}

// prefixMatch reports whether names can be the start of a path pattern
// matches (or lie under one it matches).
func prefixMatch(pattern, names []string) bool {
	if len(names) == 0 || len(pattern) == 0 {
		return true
	}
	if pattern[0] == "**" {
		return true
	}
	ok, err := path.Match(pattern[0], names[0])
	return ok && err == nil && prefixMatch(pattern[1:], names[1:])
}
