package bench

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/toolgate/toolgate"
	"github.com/toolgate/toolgate/internal/testserver"
)

// runMemory measures the process's resident memory with 10 connected stdio
// servers (their own processes are not counted), and the live heap before
// and after many calls.
func runMemory(ctx context.Context, o *Options, rep *Report) error {
	const servers = 10
	command, args, env := testserver.Command(testserver.BehaviourServe)
	cfg := toolgate.Config{}
	names := make([]string, servers)
	for i := range names {
		names[i] = fmt.Sprintf("s%d", i)
		cfg.Servers = append(cfg.Servers, toolgate.ServerConfig{Name: names[i], Command: command, Args: args, Env: env})
	}
	base, err := rss()
	if err != nil {
		return err
	}
	m, err := toolgate.New(cfg)
	if err != nil {
		return err
	}
	defer m.Close()
	defs, err := m.ToolDefinitions(ctx)
	if err != nil {
		return err
	}
	for _, d := range defs {
		if d.Error != "" {
			return fmt.Errorf("%s: %s", d.Name, d.Error)
		}
	}
	var next atomic.Uint64
	roundRobin := func(ctx context.Context) error {
		name := names[next.Add(1)%servers]
		if r := m.CallTool(ctx, name, "echo", echoArgs); r.Err != nil {
			return r.Err
		}
		return nil
	}
	if _, err := load(ctx, roundRobin, servers, o.pick(100, 1000)); err != nil {
		return err
	}
	connected, err := rss()
	if err != nil {
		return err
	}
	rep.Rows = append(rep.Rows, Row{
		Section: "Memory", Name: fmt.Sprintf("process RSS, %d connected stdio servers (children not counted)", servers),
		A: "toolgate", AMedian: megabytes(connected), B: "before connecting", BMedian: megabytes(base),
		Target: "A ≤ 30 MB", Met: connected <= 30e6,
	})

	calls := o.pick(2000, 100_000)
	start := liveHeap()
	if _, err := load(ctx, roundRobin, 64, calls); err != nil {
		return err
	}
	end := liveHeap()
	r := float64(end) / float64(start)
	rep.Rows = append(rep.Rows, Row{
		Section: "Memory", Name: fmt.Sprintf("live heap after GC, before and after %d calls (64 callers)", calls),
		A: "after", AMedian: megabytes(end), B: "before", BMedian: megabytes(start),
		Ratio: r, RatioOf: "A/B", Target: "≤ 1.10", Met: r <= 1.10,
	})
	o.logf("bench:   memory: RSS %s (%s before connecting); heap %s -> %s",
		megabytes(connected), megabytes(base), megabytes(start), megabytes(end))
	return nil
}

// liveHeap is the heap in use after a full collection.
func liveHeap() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// rss is the process's resident set size in bytes, after a collection.
func rss() (uint64, error) {
	runtime.GC()
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, fmt.Errorf("reading RSS: %w", err)
	}
	for line := range strings.Lines(string(data)) {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err != nil {
				return 0, fmt.Errorf("reading RSS: %q: %w", line, err)
			}
			return kb << 10, nil
		}
	}
	return 0, fmt.Errorf("reading RSS: no VmRSS in /proc/self/status")
}
