package proc

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestParseStat(t *testing.T) {
	line := "42 (a (weird) name) S 1 40 39 0 -1 4194560 100 0 0 0 0 0 0 0 20 0 1 0 12345 0 0"
	in, ok := parseStat(42, []byte(line))
	if !ok || in.PPid != 1 || in.Pgid != 40 || in.Sid != 39 || in.Start != 12345 || in.Zombie {
		t.Fatalf("parseStat = %+v, %v", in, ok)
	}
	if _, ok := parseStat(1, []byte("garbage")); ok {
		t.Error("parseStat accepted garbage")
	}
}

// TestKillMarkedFindsEscapees starts a child in a group of its own that
// starts a grandchild in a new session, as browsers do, and checks that
// KillMarked ends both while Detached sees the escaped one.
func TestKillMarkedFindsEscapees(t *testing.T) {
	mark := NewMark()
	pidFile := t.TempDir() + "/escapee"
	cmd := exec.Command("/bin/sh", "-c", `setsid sleep 300 & echo $! > "$0"; sleep 300`, pidFile)
	cmd.Env = append(os.Environ(), MarkVar+"="+mark)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	var escapee int
	for deadline := time.Now().Add(5 * time.Second); escapee == 0; {
		data, _ := os.ReadFile(pidFile)
		escapee, _ = strconv.Atoi(strings.TrimSpace(string(data)))
		if time.Now().After(deadline) {
			t.Fatal("the escapee did not start")
		}
		time.Sleep(10 * time.Millisecond)
	}
	esc, ok := Read(escapee)
	if !ok || esc.Sid != escapee {
		t.Fatalf("escapee %d: %+v, %v; want a session of its own", escapee, esc, ok)
	}
	if d := Detached(cmd.Process.Pid); len(d) != 1 || d[0].Pid != escapee {
		t.Errorf("Detached = %+v, want the escapee %d", d, escapee)
	}
	if g := Groups(mark); len(g) < 2 {
		t.Errorf("Groups = %v, want the child's group and the escapee's session", g)
	}
	if n := KillMarked(mark, nil, 2*time.Second); n < 2 {
		t.Errorf("KillMarked signalled %d processes, want at least 2", n)
	}
	_ = cmd.Wait()
	if esc.Alive() {
		t.Errorf("the escapee %d survived", escapee)
	}
	if KillMarked(mark, nil, time.Second) != 0 {
		t.Error("a second KillMarked found processes")
	}
}
