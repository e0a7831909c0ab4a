package bench

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/toolgate/toolgate"
	"github.com/toolgate/toolgate/internal/testserver"
)

// runPerCall compares one persistent session with the original's model, a
// new process and session for every call, over stdio: for the Go test
// server and, when it is installed, for server-everything.
func runPerCall(ctx context.Context, o *Options, rep *Report) error {
	command, args, env := testserver.Command(testserver.BehaviourServe)
	goServer := toolgate.ServerConfig{Name: "s", Command: command, Args: args, Env: env}
	if err := perCallOn(ctx, o, rep, "Go test server", goServer, echoArgs, o.pick(2, 20)); err != nil {
		return fmt.Errorf("per-call on the Go test server: %w", err)
	}
	if o.Everything == nil {
		rep.Notes = append(rep.Notes, "server-everything was not found: its per-call comparison was skipped "+
			"(scripts/test-deps.sh installs it)")
		return nil
	}
	ev := toolgate.ServerConfig{Name: "s", Command: o.Everything.Path, Args: o.Everything.Args}
	if err := perCallOn(ctx, o, rep, "server-everything (node)", ev,
		map[string]any{"message": "ping"}, o.pick(2, 6)); err != nil {
		return fmt.Errorf("server-everything: %w", err)
	}
	return nil
}

// perCallOn measures echo on sc in both session modes; perCall is how many
// per-call calls a round makes.
func perCallOn(ctx context.Context, o *Options, rep *Report, name string, sc toolgate.ServerConfig,
	args map[string]any, perCall int) error {
	managers := map[toolgate.SessionMode]*toolgate.Manager{}
	for _, mode := range []toolgate.SessionMode{toolgate.SessionPersistent, toolgate.SessionPerCall} {
		sc.Session = mode
		m, err := toolgate.New(toolgate.Config{Servers: []toolgate.ServerConfig{sc}})
		if err != nil {
			return err
		}
		defer m.Close()
		managers[mode] = m
	}
	echo := func(m *toolgate.Manager) call {
		return func(ctx context.Context) error {
			if r := m.CallTool(ctx, "s", "echo", args); r.Err != nil {
				return r.Err
			}
			return nil
		}
	}
	a, b := echo(managers[toolgate.SessionPersistent]), echo(managers[toolgate.SessionPerCall])
	for _, f := range []call{a, b} {
		if err := f(ctx); err != nil {
			return fmt.Errorf("warm-up: %w", err)
		}
	}
	rounds, err := interleave(ctx, o.pick(1, 5),
		side{"persistent", func(ctx context.Context) (sample, error) { return load(ctx, a, 1, o.pick(20, 200)) }},
		side{"per-call", func(ctx context.Context) (sample, error) { return load(ctx, b, 1, perCall) }})
	if err != nil {
		return err
	}
	sa, sb := summarize(rounds[0]), summarize(rounds[1])
	r := ratio(sb.median, sa.median)
	rep.Rows = append(rep.Rows, Row{
		Section: "Persistent session vs connect per call (stdio)", Name: name,
		A: "persistent", B: "per-call",
		AMedian: dur(sa.median), AP99: dur(sa.p99), BMedian: dur(sb.median), BP99: dur(sb.p99),
		Ratio: r, RatioOf: "B/A median", Target: "≥ 50", Met: r >= 50,
	})
	o.logf("bench:   %s: persistent %v, per-call %v (x%.0f)", name, sa.median, sb.median, r)
	return nil
}

// FindEverything finds @modelcontextprotocol/server-everything as
// scripts/test-deps.sh installs it: under $TOOLGATE_NPM_DIR, else under
// .tools/npm/node_modules in root. It runs on the system's node when that
// is v20 or later, else on the pinned Node 22.
func FindEverything(root string) (*Command, error) {
	dir := os.Getenv("TOOLGATE_NPM_DIR")
	if dir == "" {
		dir = filepath.Join(root, ".tools", "npm", "node_modules")
	}
	entry := filepath.Join(dir, "@modelcontextprotocol", "server-everything", "dist", "index.js")
	if _, err := os.Stat(entry); err != nil {
		return nil, fmt.Errorf("server-everything: %w", err)
	}
	node := filepath.Join(dir, ".bin", "node")
	if p, err := exec.LookPath("node"); err == nil && nodeMajor(p) >= 20 {
		node = p
	} else if nodeMajor(node) < 20 {
		return nil, errors.New("server-everything: no node v20 or later (system or .tools/npm)")
	}
	return &Command{Path: node, Args: []string{entry, "stdio"}}, nil
}

// nodeMajor is the major version of the node at path, or 0.
func nodeMajor(path string) int {
	out, err := exec.Command(path, "--version").Output()
	if err != nil {
		return 0
	}
	v := strings.TrimPrefix(strings.TrimSpace(string(out)), "v")
	major, _, _ := strings.Cut(v, ".")
	n, _ := strconv.Atoi(major)
	return n
}
