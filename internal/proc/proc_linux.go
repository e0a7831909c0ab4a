package proc

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Read returns what /proc/PID/stat says of pid.
func Read(pid int) (Info, bool) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return Info{}, false
	}
	return parseStat(pid, data)
}

// parseStat parses /proc/PID/stat. The command name (field 2) may hold
// spaces and parentheses, so fields are counted from its closing ')'.
func parseStat(pid int, data []byte) (Info, bool) {
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return Info{}, false
	}
	f := strings.Fields(string(data[i+1:]))
	if len(f) < 20 {
		return Info{}, false
	}
	// f[0] state, f[1] ppid, f[2] pgrp, f[3] session, f[19] starttime
	ppid, _ := strconv.Atoi(f[1])
	pgid, _ := strconv.Atoi(f[2])
	sid, _ := strconv.Atoi(f[3])
	start, _ := strconv.ParseUint(f[19], 10, 64)
	return Info{Pid: pid, PPid: ppid, Pgid: pgid, Sid: sid, Start: start, Zombie: f[0] == "Z" || f[0] == "X"}, true
}

// children returns the direct children of pid, from every thread's
// /proc/PID/task/TID/children.
func children(pid int) []int {
	tasks, _ := filepath.Glob("/proc/" + strconv.Itoa(pid) + "/task/*/children")
	var out []int
	for _, t := range tasks {
		data, err := os.ReadFile(t)
		if err != nil {
			continue
		}
		for _, s := range strings.Fields(string(data)) {
			if c, err := strconv.Atoi(s); err == nil {
				out = append(out, c)
			}
		}
	}
	return out
}

// Detached returns the processes that leader started, directly or through
// processes of leader's own group, that lead a process group of their own,
// as the browsers that Playwright launches do. It does not look inside them.
func Detached(leader int) []Info {
	self, ok := Read(leader)
	if !ok {
		return nil
	}
	var out []Info
	queue := children(leader)
	for len(queue) > 0 {
		pid := queue[0]
		queue = queue[1:]
		in, ok := Read(pid)
		if !ok || in.Zombie {
			continue
		}
		if in.Pgid == pid && in.Pgid != self.Pgid {
			out = append(out, in)
			continue
		}
		queue = append(queue, children(pid)...)
	}
	return out
}

// scan reads every process in /proc, noting which carry mark.
func scan(mark string) []Info {
	dirs, _ := os.ReadDir("/proc")
	want := []byte(MarkVar + "=" + mark + "\x00")
	var out []Info
	for _, d := range dirs {
		pid, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		in, ok := Read(pid)
		if !ok {
			continue
		}
		if env, err := os.ReadFile("/proc/" + d.Name() + "/environ"); err == nil {
			in.marked = bytes.Contains(env, want)
		}
		out = append(out, in)
	}
	return out
}

// Groups returns the ids of the process groups and sessions led by a
// process that carries mark. Pass them to [KillMarked] later, in case their
// leaders have exited by then while the rest of the group lives on.
func Groups(mark string) []int {
	var ids []int
	for _, in := range scan(mark) {
		if in.marked && (in.Pgid == in.Pid || in.Sid == in.Pid) {
			ids = append(ids, in.Pid)
		}
	}
	return ids
}

// KillMarked sends SIGKILL to every process that carries mark, every process
// in a group or session that one of them leads or that groups names, and
// all their descendants, then waits up to wait for them to be gone. It never
// signals the calling process, its group or its session. It returns how many
// processes it signalled.
func KillMarked(mark string, groups []int, wait time.Duration) int {
	if mark == "" {
		return 0
	}
	all := scan(mark)
	me := os.Getpid()
	myPgid, _ := syscall.Getpgid(me)
	mySid, _ := getsid()
	leaders := slices.Clone(groups)
	for _, in := range all {
		if in.marked && (in.Pgid == in.Pid || in.Sid == in.Pid) {
			leaders = append(leaders, in.Pid)
		}
	}
	leaders = slices.DeleteFunc(leaders, func(id int) bool { return id == myPgid || id == mySid || id <= 1 })
	doomed := make(map[int]Info)
	for _, in := range all {
		if in.marked || slices.Contains(leaders, in.Pgid) || slices.Contains(leaders, in.Sid) {
			doomed[in.Pid] = in
		}
	}
	for grew := true; grew; { // add descendants
		grew = false
		for _, in := range all {
			if _, ok := doomed[in.Pid]; !ok {
				if _, parent := doomed[in.PPid]; parent {
					doomed[in.Pid] = in
					grew = true
				}
			}
		}
	}
	delete(doomed, me)
	n := 0
	for _, in := range doomed {
		if !in.Zombie && in.Pid > 1 && syscall.Kill(in.Pid, syscall.SIGKILL) == nil {
			n++
		}
	}
	waitGone(doomed, wait)
	return n
}

// waitGone polls until none of procs is alive, or wait has passed.
func waitGone(procs map[int]Info, wait time.Duration) {
	deadline := time.Now().Add(wait)
	for _, in := range procs {
		for in.Alive() && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
		}
	}
}

func getsid() (int, error) {
	sid, _, errno := syscall.RawSyscall(syscall.SYS_GETSID, 0, 0, 0)
	if errno != 0 {
		return 0, errno
	}
	return int(sid), nil
}
