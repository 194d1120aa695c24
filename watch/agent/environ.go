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
	ps := Procs(root)
	var envs [][]string
	for i := len(ps) - 1; i >= 0; i-- {
		envs = append(envs, ps[i].Env)
	}
	return envs
}

// Proc is one process of a pane's tree as it was started: its arguments
// and its environment (what it was exec'd with; a shell's later exports
// show in the programs it starts).
type Proc struct {
	PID   int
	PPID  int
	Depth int      // 0 for the root, 1 for what it started, …
	Argv  []string // /proc/PID/cmdline
	Env   []string // /proc/PID/environ, NAME=value
}

// Procs are root's process tree, the root first and the deepest last.
// Processes whose environment cannot be read are left out.
func Procs(root int) []Proc {
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
	slices.SortStableFunc(pids, func(a, b int) int { return depth(a) - depth(b) })
	var out []Proc
	for _, pid := range pids {
		env := nulList("/proc/" + strconv.Itoa(pid) + "/environ")
		if len(env) == 0 {
			continue
		}
		out = append(out, Proc{PID: pid, PPID: parent[pid], Depth: depth(pid), Argv: nulList("/proc/" + strconv.Itoa(pid) + "/cmdline"), Env: env})
	}
	return out
}

// nulList reads a /proc file of NUL-terminated strings.
func nulList(path string) []string {
	data, err := os.ReadFile(path)
	if err != nil || len(data) == 0 {
		return nil
	}
	var list []string
	for _, s := range bytes.Split(bytes.TrimRight(data, "\x00"), []byte{0}) {
		list = append(list, string(s))
	}
	return list
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
