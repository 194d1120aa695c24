package agent

import (
	"bytes"
	"os"
	"slices"
	"strconv"
	"strings"
)

// Environs are the environments of root's process tree (a pane's process
// and what it started), read from /proc/PID/environ, the deepest process
// first: the agent a wrapper started, with the HOME and config folders it
// gave it, before the wrapper. Processes that cannot be read are left out.
func Environs(root int) [][]string {
	if root <= 0 {
		return nil
	}
	ps := listProcs()
	parent := map[int]int{}
	for _, p := range ps {
		parent[p.pid] = p.ppid
	}
	depth := func(pid int) int {
		n := 0
		for pid != root && pid > 1 && n < 64 {
			pid, n = parent[pid], n+1
		}
		return n
	}
	pids := treeOf(root, ps)
	slices.SortStableFunc(pids, func(a, b int) int { return depth(b) - depth(a) })
	var envs [][]string
	for _, pid := range pids {
		data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
		if err != nil || len(data) == 0 {
			continue
		}
		var env []string
		for _, kv := range bytes.Split(bytes.TrimRight(data, "\x00"), []byte{0}) {
			env = append(env, string(kv))
		}
		envs = append(envs, env)
	}
	return envs
}

// CommandEnv is what a command sets in its agent's environment by its own
// words, in front of the program word: `env NAME=value … agent`, or a
// shell line's leading NAME=value assignments.
func CommandEnv(words []string, inLine bool) []string {
	f := walk(words, inLine)
	end := f.at
	if end < 0 {
		end = len(words)
	}
	var env []string
	for _, w := range words[:end] {
		if isAssignment(w) {
			env = append(env, w)
		}
	}
	return env
}

// Getenv is getenv over env (NAME=value, the last one wins), falling back
// to fallback for a name env does not set.
func Getenv(env []string, fallback func(string) string) func(string) string {
	return func(name string) string {
		for i := len(env) - 1; i >= 0; i-- {
			if k, v, ok := strings.Cut(env[i], "="); ok && k == name {
				return v
			}
		}
		if fallback == nil {
			return ""
		}
		return fallback(name)
	}
}
