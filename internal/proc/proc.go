// Package proc finds and ends the processes a child server started, through
// Linux's /proc: those that left the child's process group (a browser that
// Playwright launches in a session of its own) and those that detached from
// it altogether (Chromium's crash handler), so that closing a server leaves
// nothing behind. On other systems its functions do nothing.
package proc

import (
	"crypto/rand"
	"encoding/hex"
)

// MarkVar is the environment variable that carries a child's mark. Every
// process the child starts inherits it, unless it clears its environment.
const MarkVar = "TOOLGATE_PROCESS_MARK"

// NewMark returns a new random value for [MarkVar].
func NewMark() string {
	var b [12]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails on supported systems
	return hex.EncodeToString(b[:])
}

// Info is one process as /proc describes it.
type Info struct {
	Pid, PPid int
	Pgid, Sid int
	Start     uint64 // start time in clock ticks after boot; tells a reused pid apart
	Zombie    bool
	marked    bool // carries the mark (set by scan)
}

// Alive reports whether the process still runs: the same pid with the same
// start time, and not a zombie.
func (i Info) Alive() bool {
	now, ok := Read(i.Pid)
	return ok && now.Start == i.Start && !now.Zombie
}
