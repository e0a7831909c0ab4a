//go:build !linux

package proc

import "time"

// Read reports nothing on this system.
func Read(pid int) (Info, bool) { return Info{}, false }

// Detached finds nothing on this system.
func Detached(leader int) []Info { return nil }

// Groups finds nothing on this system.
func Groups(mark string) []int { return nil }

// KillMarked does nothing on this system; the process-group kill still runs.
func KillMarked(mark string, groups []int, wait time.Duration) int { return 0 }
