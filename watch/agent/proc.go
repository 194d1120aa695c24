package agent

import (
	"errors"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/ralph-tmux/ralph.tmux/watch/clock"
)

// proc is what matters here of one /proc/PID/stat.
type proc struct {
	pid, ppid, pgrp, session int
	tpgid                    int   // the foreground process group of its terminal
	ticks                    int64 // CPU time used, user and system, in clock ticks
}

// listProcs reads the process table from /proc (live processes only).
func listProcs() []proc {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var ps []proc
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if p, live, err := readProc(pid); err == nil && live {
			ps = append(ps, p)
		}
	}
	return ps
}

// readProc reads one process's /proc/PID/stat; live is false for a zombie.
func readProc(pid int) (p proc, live bool, err error) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return p, false, err
	}
	// The command name is in parentheses and may hold spaces: parse after the last ')'.
	s := string(data)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 13 {
		return p, false, errors.New("short stat")
	}
	p.pid = pid
	p.ppid, _ = strconv.Atoi(f[1])
	p.pgrp, _ = strconv.Atoi(f[2])
	p.session, _ = strconv.Atoi(f[3])
	p.tpgid, _ = strconv.Atoi(f[5])
	utime, _ := strconv.ParseInt(f[11], 10, 64)
	stime, _ := strconv.ParseInt(f[12], 10, 64)
	p.ticks = utime + stime
	return p, f[0] != "Z" && f[0] != "X", nil
}

// treeOf returns root and every process that descends from it, shares its
// process group, or stays in the session it leads (a pane's process leads one).
func treeOf(root int, ps []proc) []int {
	in := map[int]bool{root: true}
	for changed := true; changed; {
		changed = false
		for _, p := range ps {
			if !in[p.pid] && (in[p.ppid] || p.pgrp == root || p.session == root) {
				in[p.pid], changed = true, true
			}
		}
	}
	self := os.Getpid()
	var pids []int
	for _, p := range ps {
		if in[p.pid] && p.pid != self {
			pids = append(pids, p.pid)
		}
	}
	return pids
}

// EndTree ends root's whole process tree: SIGHUP and SIGTERM (shells heed
// one, agents the other), up to grace for it to go,
// then SIGKILL for what is left, including children that were re-parented or
// ignore SIGHUP and SIGTERM. It returns the pids that had to be killed.
func EndTree(root int, grace time.Duration) (killed []int) {
	return EndTreeOn(clock.Real{}, root, grace)
}

// EndTreeOn is EndTree with the grace measured on c.
func EndTreeOn(c clock.Clock, root int, grace time.Duration) (killed []int) {
	if root <= 0 {
		return nil
	}
	pids := treeOf(root, listProcs())
	for _, pid := range pids {
		syscall.Kill(pid, syscall.SIGHUP)
		syscall.Kill(pid, syscall.SIGTERM)
	}
	// Only the tree's own pids are looked at while it goes: a whole /proc
	// read every 20 ms was a fifth of a watcher's CPU.
	deadline := c.Now().Add(grace)
	for anyLive(pids) && !c.Now().After(deadline) {
		<-c.After(20 * time.Millisecond)
	}
	// Take in whatever the survivors forked meanwhile.
	ps := listProcs()
	live := map[int]bool{}
	for _, p := range ps {
		live[p.pid] = true
	}
	seen := map[int]bool{}
	for _, pid := range pids {
		seen[pid] = true
	}
	for _, pid := range treeOf(root, ps) {
		if !seen[pid] {
			pids = append(pids, pid)
		}
	}
	for _, pid := range pids {
		if live[pid] || !seen[pid] {
			if syscall.Kill(pid, syscall.SIGKILL) == nil {
				killed = append(killed, pid)
			}
		}
	}
	return killed
}

// anyLive reports whether one of pids is a live process (not a zombie).
func anyLive(pids []int) bool {
	for _, pid := range pids {
		if _, live, err := readProc(pid); err == nil && live {
			return true
		}
	}
	return false
}

// PaneProcess is a pane's process as first seen, to tell cheaply whether it
// still runs there: a process that ended, became a zombie, or lost its
// parent (the tmux server) no longer does.
type PaneProcess struct{ pid, ppid int }

// WatchProcess notes pid and its parent now.
func WatchProcess(pid int) PaneProcess {
	ppid, _ := parentOf(pid)
	return PaneProcess{pid: pid, ppid: ppid}
}

// Running reports whether the process still runs under the same parent;
// without /proc only whether it exists.
func (p PaneProcess) Running() bool {
	if p.pid <= 0 || syscall.Kill(p.pid, 0) != nil {
		return false
	}
	ppid, ok := parentOf(p.pid)
	return !ok || ppid == p.ppid && ppid > 0
}

// parentOf reads a live process's parent from /proc; ok is false when /proc
// cannot tell (no /proc), and the parent 0 for a zombie.
func parentOf(pid int) (ppid int, ok bool) {
	p, live, err := readProc(pid)
	if err != nil {
		_, serr := os.Stat("/proc/self/stat")
		return 0, serr == nil
	}
	if !live {
		return 0, true
	}
	return p.ppid, true
}

// EndSession ends what is left of a session whose leader was pid: the leader
// too while it still leads it, never a process that took over its pid.
func EndSession(c clock.Clock, pid int, grace time.Duration) {
	for _, p := range listProcs() {
		if p.pid == pid && p.session != pid {
			return
		}
	}
	EndTreeOn(c, pid, grace)
}
