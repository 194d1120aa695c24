package watch

import (
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// proc is one line of /proc/PID/stat that matters here.
type proc struct{ pid, ppid, pgrp, session int }

// listProcs reads the process table from /proc.
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
		data, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// The command name is in parentheses and may hold spaces: parse after the last ')'.
		s := string(data)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) < 4 || f[0] == "Z" {
			continue
		}
		ppid, _ := strconv.Atoi(f[1])
		pgrp, _ := strconv.Atoi(f[2])
		sid, _ := strconv.Atoi(f[3])
		ps = append(ps, proc{pid, ppid, pgrp, sid})
	}
	return ps
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
	if root <= 0 {
		return nil
	}
	pids := treeOf(root, listProcs())
	for _, pid := range pids {
		syscall.Kill(pid, syscall.SIGHUP)
		syscall.Kill(pid, syscall.SIGTERM)
	}
	deadline := time.Now().Add(grace)
	for {
		alive := 0
		ps := listProcs()
		live := map[int]bool{}
		for _, p := range ps {
			live[p.pid] = true
		}
		for _, pid := range pids {
			if live[pid] {
				alive++
			}
		}
		if alive == 0 || time.Now().After(deadline) {
			// Take in whatever the survivors forked meanwhile.
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
		time.Sleep(20 * time.Millisecond)
	}
}

// endSession ends what is left of a session whose leader was pid: the leader
// too while it still leads it, never a process that took over its pid.
func endSession(pid int, grace time.Duration) {
	for _, p := range listProcs() {
		if p.pid == pid && p.session != pid {
			return
		}
	}
	EndTree(pid, grace)
}
