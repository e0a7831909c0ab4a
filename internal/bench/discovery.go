package bench

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/toolgate/toolgate"
	"github.com/toolgate/toolgate/internal/testserver"
)

// startDelay is how long each server of the discovery comparison takes to start.
const startDelay = 200 * time.Millisecond

// discoveryServers returns n stdio servers that each take startDelay to start.
func discoveryServers(n int) []toolgate.ServerConfig {
	command, args, env := testserver.Command(testserver.DelayedStart(startDelay))
	out := make([]toolgate.ServerConfig, n)
	for i := range out {
		out[i] = toolgate.ServerConfig{Name: fmt.Sprintf("s%d", i), Command: command, Args: args, Env: env}
	}
	return out
}

// discover times one cold ToolDefinitions of a new Manager over servers.
func discover(ctx context.Context, servers []toolgate.ServerConfig) (time.Duration, error) {
	m, err := toolgate.New(toolgate.Config{Servers: servers})
	if err != nil {
		return 0, err
	}
	defer m.Close()
	start := time.Now()
	defs, err := m.ToolDefinitions(ctx)
	took := time.Since(start)
	if err != nil {
		return 0, err
	}
	for _, d := range defs {
		if d.Error != "" {
			return 0, fmt.Errorf("%s: %s", d.Name, d.Error)
		}
	}
	return took, nil
}

// once makes a round of one timed operation.
func once(f func(context.Context) (time.Duration, error)) func(context.Context) (sample, error) {
	return func(ctx context.Context) (sample, error) {
		d, err := f(ctx)
		return sample{lat: []time.Duration{d}, wall: d}, err
	}
}

// runDiscovery compares listing 8 slow-starting servers at once with
// listing them one after another (the original), and with one server alone;
// then it times a cached ToolDefinitions.
func runDiscovery(ctx context.Context, o *Options, rep *Report) error {
	const n = 8
	servers := discoveryServers(n)
	rounds, err := interleave(ctx, o.pick(1, 5),
		side{"concurrent", once(func(ctx context.Context) (time.Duration, error) { return discover(ctx, servers) })},
		side{"sequential", once(func(ctx context.Context) (time.Duration, error) {
			var total time.Duration
			for i := range servers { // the original: one server after another, a session each
				sc := servers[i]
				sc.Session = toolgate.SessionPerCall
				d, err := discover(ctx, []toolgate.ServerConfig{sc})
				if err != nil {
					return 0, err
				}
				total += d
			}
			return total, nil
		})},
		side{"one server", once(func(ctx context.Context) (time.Duration, error) { return discover(ctx, servers[:1]) })})
	if err != nil {
		return err
	}
	conc, seq, one := summarize(rounds[0]), summarize(rounds[1]), summarize(rounds[2])
	name := fmt.Sprintf("%d servers, each %v to start", n, startDelay)
	r := ratio(seq.median, conc.median)
	rep.Rows = append(rep.Rows, Row{
		Section: "Discovery", Name: name, A: "concurrent", B: "sequential",
		AMedian: dur(conc.median), BMedian: dur(seq.median),
		Ratio: r, RatioOf: "B/A median", Target: "faster", Met: r > 1,
	})
	r = ratio(conc.median, one.median)
	rep.Rows = append(rep.Rows, Row{
		Section: "Discovery", Name: name + " vs the slowest alone", A: "concurrent", B: "one server",
		AMedian: dur(conc.median), BMedian: dur(one.median),
		Ratio: r, RatioOf: "A/B median", Target: "≤ 1.50", Met: r <= 1.5,
	})
	o.logf("bench:   discovery: concurrent %v, sequential %v, one %v", conc.median, seq.median, one.median)
	return cachedDiscovery(ctx, o, rep, servers)
}

// cachedDiscovery times ToolDefinitions answered from the cache.
func cachedDiscovery(ctx context.Context, o *Options, rep *Report, servers []toolgate.ServerConfig) error {
	m, err := toolgate.New(toolgate.Config{Servers: servers})
	if err != nil {
		return err
	}
	defer m.Close()
	if _, err := m.ToolDefinitions(ctx); err != nil {
		return err
	}
	list := func(ctx context.Context) error {
		defs, err := m.ToolDefinitions(ctx)
		if err == nil && len(defs) != len(servers) {
			err = errors.New("wrong number of servers listed")
		}
		return err
	}
	smp, err := load(ctx, list, 1, o.pick(100, 20000))
	if err != nil {
		return err
	}
	st := summarize([]sample{smp})
	rep.Rows = append(rep.Rows, Row{
		Section: "Discovery", Name: fmt.Sprintf("cached ToolDefinitions, %d servers", len(servers)), A: "toolgate",
		AMedian: dur(st.median), AP99: dur(st.p99),
		Target: "median ≤ 50µs", Met: st.median <= 50*time.Microsecond,
	})
	return nil
}
