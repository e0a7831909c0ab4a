package upstream

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"slices"
	"sync"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolgate/toolgate/internal/proc"
)

// stderrLimit bounds how much of a child's stderr is kept.
const stderrLimit = 16 << 10

// process is a stdio server's child: its command, its process group and
// the tail of its stderr.
type process struct {
	cmd    *exec.Cmd
	stderr *tail
	r, w   *os.File // stderr pipe
	drain  chan struct{}

	// mark is the value of proc.MarkVar in the child's environment, when
	// Spec.KillDetached asks to find what the child started outside its
	// group; groups are the groups and sessions its marked processes led
	// when the session began to close.
	mark   string
	groups []int

	killOnce sync.Once
}

// newProcess prepares (but does not start) the child for spec. The child
// leads a new process group so that its own children can be ended with it.
func newProcess(spec *Spec) (*process, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("stderr pipe: %w", err)
	}
	cmd := exec.Command(spec.Command, spec.Args...)
	cmd.Dir = spec.Dir
	cmd.Env = os.Environ()
	for _, k := range slices.Sorted(maps.Keys(spec.Env)) {
		cmd.Env = append(cmd.Env, k+"="+spec.Env[k])
	}
	var mark string
	if spec.KillDetached {
		mark = proc.NewMark()
		cmd.Env = append(cmd.Env, proc.MarkVar+"="+mark) // last, so it wins
	}
	cmd.Stderr = w // an *os.File: no copying goroutine for Wait to wait on
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	p := &process{cmd: cmd, stderr: newTail(stderrLimit), r: r, w: w, drain: make(chan struct{}), mark: mark}
	return p, nil
}

// transport returns the go-sdk transport that starts the child. grace is
// how long closing waits for the child after closing its stdin, and again
// after SIGTERM, before killing it.
func (p *process) transport(grace time.Duration) mcp.Transport {
	return &startedHook{
		CommandTransport: mcp.CommandTransport{Command: p.cmd, TerminateDuration: grace},
		p:                p,
	}
}

// startedHook starts reading stderr once the child runs.
type startedHook struct {
	mcp.CommandTransport
	p *process
}

func (t *startedHook) Connect(ctx context.Context) (mcp.Connection, error) {
	conn, err := t.CommandTransport.Connect(ctx)
	t.p.w.Close() // the child has its copy (or never started)
	t.p.w = nil
	go t.p.readStderr()
	if err != nil {
		t.p.killGroup()
		return nil, err
	}
	return conn, nil
}

func (p *process) readStderr() {
	defer close(p.drain)
	_, _ = io.Copy(p.stderr, p.r)
}

// killGroup kills every process left in the child's group, then stops
// reading its stderr. It is safe to call more than once.
func (p *process) killGroup() {
	p.killOnce.Do(func() {
		if p.w != nil { // never started
			p.w.Close()
		}
		if p.cmd.Process != nil {
			// The group may outlive its leader: grandchildren (npx -> node) stay in it.
			err := syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
			if err != nil && !errors.Is(err, syscall.ESRCH) {
				_ = p.cmd.Process.Kill()
			}
			// What it started outside its group, such as a browser.
			proc.KillMarked(p.mark, p.groups, time.Second)
		}
		// A descendant that left the group may still hold the pipe open: do
		// not wait on it for long.
		select {
		case <-p.drain:
		case <-time.After(200 * time.Millisecond):
		}
		p.r.Close()
		<-p.drain
	})
}

// noteGroups records the groups and sessions led by the child's marked
// processes, before closing gives them a chance to exit and leave the rest
// of their group without a leader that carries the mark.
func (p *process) noteGroups() {
	if p.mark != "" {
		p.groups = proc.Groups(p.mark)
	}
}

// exitStatus describes how the child ended, or "" while it runs.
func (p *process) exitStatus() string {
	if st := p.cmd.ProcessState; st != nil {
		return st.String()
	}
	return ""
}
