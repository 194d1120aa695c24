package watch

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/state"
)

// Settings is the loop's configuration as its record keeps it (state.json's
// settings), one entry per field of Config, so that a resumed loop can be
// held to its first: a field added to Config is in it without a word more.
// Secrets are named, never valued; what is not a plain value (a pattern, a
// profile, a table) is written as its text, or its digest when long.
func (c *Config) Settings() map[string]string {
	out := map[string]string{}
	v, t := reflect.ValueOf(*c), reflect.TypeOf(*c)
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		switch f.Name {
		case "Secrets": // memory only: their names say which the loop needs
			names := make([]string, len(c.Secrets))
			for j, kv := range c.Secrets {
				names[j], _, _ = strings.Cut(kv, "=")
			}
			out[f.Name] = strings.Join(names, " ")
			continue
		}
		s := settingText(v.Field(i))
		if f.Type.Kind() != reflect.String && len(s) > 200 {
			sum := sha256.Sum256([]byte(s))
			s = fmt.Sprintf("sha256:%s (%d bytes)", hex.EncodeToString(sum[:6]), len(s))
		}
		out[f.Name] = s
	}
	return out
}

// settingText writes a value the same way every time: patterns by their
// text, functions by whether they are set, maps in key order.
func settingText(v reflect.Value) string {
	switch x := v.Interface().(type) {
	case *regexp.Regexp:
		if x == nil {
			return "<nil>"
		}
		return x.String()
	case time.Duration:
		return x.String()
	}
	switch v.Kind() {
	case reflect.Func:
		return map[bool]string{true: "<nil>", false: "<func>"}[v.IsNil()]
	case reflect.Pointer:
		if v.IsNil() {
			return "<nil>"
		}
		return "&" + settingText(v.Elem())
	case reflect.Struct:
		parts := make([]string, 0, v.NumField())
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				parts = append(parts, v.Type().Field(i).Name+":"+settingText(v.Field(i)))
			}
		}
		return "{" + strings.Join(parts, " ") + "}"
	case reflect.Slice, reflect.Array:
		parts := make([]string, v.Len())
		for i := range parts {
			parts[i] = settingText(v.Index(i))
		}
		return "[" + strings.Join(parts, " ") + "]"
	case reflect.Map:
		keys := v.MapKeys()
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = settingText(k) + ":" + settingText(v.MapIndex(k))
		}
		slices.Sort(parts)
		return "map[" + strings.Join(parts, " ") + "]"
	}
	return fmt.Sprint(v.Interface())
}

// TakePlaces gives a resumed loop the places its record names: where the
// agent works (its worktree), the plan, prompt, done, pause and progress
// files, the end command, PATH, the commit a fan's task began at and where
// each command came from, as the first start resolved them. A new watcher
// would guess them again from the folder resume was typed in and the
// pane's folder, where the agent may have gone since.
func (c *Config) TakePlaces(st *state.State) {
	if st == nil {
		return
	}
	s := st.Settings
	for name, p := range map[string]*string{
		"Dir": &c.Dir, "Worktree": &c.Worktree, "WorktreeBranch": &c.WorktreeBranch, "WorktreeBase": &c.WorktreeBase,
		"TasksFile": &c.TasksFile, "PromptFile": &c.PromptFile, "DoneFile": &c.DoneFile, "PauseFile": &c.PauseFile,
		"ProgressFile": &c.ProgressFile, "EndCommand": &c.EndCommand, "Path": &c.Path, "TaskBase": &c.TaskBase,
	} {
		if v, ok := s[name]; ok {
			*p = v
		}
	}
	if s == nil { // recorded before the settings were: what the state kept of them
		c.Dir = cmp.Or(st.Dir, c.Dir)
		c.Worktree, c.WorktreeBranch = cmp.Or(st.Worktree, c.Worktree), cmp.Or(st.WorktreeBranch, c.WorktreeBranch)
		c.WorktreeBase, c.PromptFile = cmp.Or(st.WorktreeBase, c.WorktreeBase), cmp.Or(st.PromptFile, c.PromptFile)
		c.Path = cmp.Or(st.Path, c.Path)
		if st.Tasks != nil && c.TasksFile != "" {
			c.TasksFile = cmp.Or(st.Tasks.File, c.TasksFile)
		}
	}
	if st.CommandSources != nil {
		c.CommandSources = st.CommandSources
	}
}
