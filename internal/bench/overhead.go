package bench

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"os/exec"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolgate/toolgate"
	"github.com/toolgate/toolgate/internal/testserver"
)

// echoArgs are the arguments of every echo call measured.
var echoArgs = map[string]any{"text": "ping"}

// target is one transport to the Go test server, reachable both through
// toolgate and through a bare go-sdk session.
type target struct {
	name   string
	server toolgate.ServerConfig
	bare   func(ctx context.Context, c *mcp.Client) (*mcp.ClientSession, error)
	close  func()
	calls  int // calls per round with one caller, in a full run
}

// targets returns the in-memory, stdio and streamable HTTP targets.
func targets() []target {
	mem, _ := testserver.New()
	memPipe := func() (client mcp.Transport, err error) {
		c, s := mcp.NewInMemoryTransports()
		if _, err := mem.Connect(context.Background(), s, nil); err != nil {
			return nil, fmt.Errorf("in-memory server: %w", err)
		}
		return c, nil
	}
	command, args, env := testserver.Command(testserver.BehaviourServe)
	h, _ := testserver.StreamableHandler()
	web := httptest.NewServer(h)
	return []target{{
		name: "in-memory",
		server: toolgate.ServerConfig{Name: "s", NewTransport: func() mcp.Transport {
			c, err := memPipe()
			if err != nil {
				c, _ = mcp.NewInMemoryTransports() // a dead end: the connect fails and says so
			}
			return c
		}},
		bare: func(ctx context.Context, c *mcp.Client) (*mcp.ClientSession, error) {
			t, err := memPipe()
			if err != nil {
				return nil, err
			}
			return c.Connect(ctx, t, nil)
		},
		close: func() {},
		calls: 1000,
	}, {
		name:   "stdio",
		server: toolgate.ServerConfig{Name: "s", Command: command, Args: args, Env: env},
		bare: func(ctx context.Context, c *mcp.Client) (*mcp.ClientSession, error) {
			cmd := exec.Command(command, args...)
			cmd.Env = cmd.Environ()
			for k, v := range env {
				cmd.Env = append(cmd.Env, k+"="+v)
			}
			return c.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
		},
		close: func() {},
		calls: 1000,
	}, {
		name:   "streamable HTTP",
		server: toolgate.ServerConfig{Name: "s", URL: web.URL},
		bare: func(ctx context.Context, c *mcp.Client) (*mcp.ClientSession, error) {
			return c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: web.URL}, nil)
		},
		close: web.Close,
		calls: 600,
	}}
}

// viaToolgate calls echo through m.
func viaToolgate(m *toolgate.Manager, server string) call {
	return func(ctx context.Context) error {
		if r := m.CallTool(ctx, server, "echo", echoArgs); r.Err != nil {
			return r.Err
		}
		return nil
	}
}

// viaSDK calls echo on cs with a deadline, as any real caller would.
func viaSDK(cs *mcp.ClientSession) call {
	return func(ctx context.Context) error {
		ctx, cancel := context.WithTimeout(ctx, time.Minute)
		defer cancel()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: echoArgs})
		if err == nil && res.IsError {
			err = errors.New("echo answered isError")
		}
		return err
	}
}

// runOverhead compares Manager.CallTool with a bare ClientSession.CallTool
// on every transport, at several concurrencies.
func runOverhead(ctx context.Context, o *Options, rep *Report) error {
	levels := []int{1, 4, 16, 64}
	if o.Quick {
		levels = []int{1, 64}
	}
	for _, tg := range targets() {
		err := overheadOn(ctx, o, rep, tg, levels)
		tg.close()
		if err != nil {
			return fmt.Errorf("%s: %w", tg.name, err)
		}
	}
	return nil
}

func overheadOn(ctx context.Context, o *Options, rep *Report, tg target, levels []int) error {
	m, err := toolgate.New(toolgate.Config{Servers: []toolgate.ServerConfig{tg.server}})
	if err != nil {
		return err
	}
	defer m.Close()
	cs, err := tg.bare(ctx, mcp.NewClient(&mcp.Implementation{Name: "bench-bare", Version: "v0"}, nil))
	if err != nil {
		return fmt.Errorf("bare go-sdk connect: %w", err)
	}
	defer cs.Close()
	a, b := viaToolgate(m, "s"), viaSDK(cs)
	for _, f := range []call{a, b} { // connect, list, warm up
		if _, err := load(ctx, f, 1, o.pick(5, 200)); err != nil {
			return fmt.Errorf("warm-up: %w", err)
		}
	}
	tgCurve := Curve{Label: "toolgate, " + tg.name}
	sdkCurve := Curve{Label: "bare go-sdk, " + tg.name, Dashed: true}
	for _, conc := range levels {
		// One caller leaves the cores half idle, where drift between rounds
		// shows most: it gets five times the rounds, each a fifth as long.
		perRound, nRounds := max(tg.calls, conc*20), 8
		if conc == 1 {
			perRound, nRounds = perRound/5, nRounds*5
		}
		n := o.pick(max(20, conc), perRound)
		rounds, err := interleave(ctx, o.pick(2, nRounds),
			side{"toolgate", func(ctx context.Context) (sample, error) { return load(ctx, a, conc, n) }},
			side{"bare go-sdk", func(ctx context.Context) (sample, error) { return load(ctx, b, conc, n) }})
		if err != nil {
			return fmt.Errorf("%d callers: %w", conc, err)
		}
		sa, sb := summarize(rounds[0]), summarize(rounds[1])
		tgCurve.Points = append(tgCurve.Points, Point{conc, sa.median})
		sdkCurve.Points = append(sdkCurve.Points, Point{conc, sb.median})
		if conc != 1 && conc != 64 {
			continue // on the chart only
		}
		name := fmt.Sprintf("%s, %d caller%s", tg.name, conc, plural(conc))
		rep.Rows = append(rep.Rows, latencyRow("Gateway overhead", name, "toolgate", "bare go-sdk", sa, sb, 1.10),
			Row{
				Section: "Gateway overhead", Name: name + ", throughput", A: "toolgate", B: "bare go-sdk",
				AMedian: perSecond(sa.throughput), BMedian: perSecond(sb.throughput),
				Ratio: sa.throughput / sb.throughput, RatioOf: "A/B calls/s",
				Target: "≥ 0.90", Met: sa.throughput >= 0.90*sb.throughput,
			})
		o.logf("bench:   %s: toolgate %v, bare %v (x%.2f)", name, sa.median, sb.median, ratio(sa.median, sb.median))
	}
	rep.Curves = append(rep.Curves, tgCurve, sdkCurve)
	return nil
}

// latencyRow compares medians: A/B at most target.
func latencyRow(section, name, a, b string, sa, sb stats, target float64) Row {
	r := ratio(sa.median, sb.median)
	return Row{
		Section: section, Name: name, A: a, B: b,
		AMedian: dur(sa.median), AP99: dur(sa.p99), BMedian: dur(sb.median), BP99: dur(sb.p99),
		Ratio: r, RatioOf: "A/B median", Target: fmt.Sprintf("≤ %.2f", target), Met: r <= target,
	}
}

func ratio(a, b time.Duration) float64 {
	if b <= 0 {
		return 0
	}
	return float64(a) / float64(b)
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
