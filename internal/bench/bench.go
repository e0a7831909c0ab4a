// Package bench measures toolgate against its baselines: a bare go-sdk
// session on the same transport, the original's connect-per-call model,
// sequential discovery, and a memory budget. Every comparison runs its
// contenders in turn, round by round (A B A B …), so that the drift of a
// noisy machine falls on both alike. [Run] is what cmd/toolgate-bench runs.
//
// Stdio servers are the running executable re-executed as the test server
// (see package testserver): a program that uses this package must call
// testserver.MainIfRequested first thing in main (or TestMain).
package bench

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

// Options configures a run.
type Options struct {
	// Quick runs a few calls per comparison instead of thousands: figures
	// are then rough, but every comparison is exercised in seconds.
	Quick bool
	// Dir, if not empty, is where BENCHMARKS.md and benchmarks-latency.svg
	// are written.
	Dir string
	// Log, if not nil, receives progress lines.
	Log io.Writer
	// Everything runs @modelcontextprotocol/server-everything over stdio;
	// nil skips the comparisons that need it (see [FindEverything]).
	Everything *Command
}

// Command is a program to run as a stdio MCP server.
type Command struct {
	Path string
	Args []string
}

// The files a run writes into Options.Dir.
const (
	ReportFile = "BENCHMARKS.md"
	ChartFile  = "benchmarks-latency.svg"
)

// Report is the outcome of a run.
type Report struct {
	Date      time.Time
	GoVersion string
	CPU       string
	Procs     int
	Quick     bool
	Rows      []Row
	Curves    []Curve  // latency against concurrency, for the chart
	Notes     []string // what was skipped, and why
}

// Row is one line of the results table: A against B.
type Row struct {
	Section string // e.g. "Gateway overhead"
	Name    string // e.g. "stdio, 64 callers"
	A, B    string // what was measured, e.g. "toolgate", "bare go-sdk"
	// AMedian, AP99, BMedian, BP99 are formatted figures; "" when the
	// row has no such figure.
	AMedian, AP99, BMedian, BP99 string
	// Ratio is the row's ratio, described by RatioOf (e.g. "A/B median").
	Ratio   float64
	RatioOf string
	// Target is the goal, e.g. "≤ 1.10"; Met reports whether Ratio (or
	// the figure the target names) reaches it.
	Target string
	Met    bool
}

// Curve is one line of the chart: median latency at each concurrency.
type Curve struct {
	Label  string // e.g. "toolgate, stdio"
	Dashed bool   // the baseline
	Points []Point
}

// Point is one measurement on a [Curve].
type Point struct {
	Callers int
	Median  time.Duration
}

// Run runs every comparison and returns the report; with opts.Dir set it
// also writes the report and the chart there, creating the directory. Memory is measured first,
// while the process holds nothing else.
func Run(ctx context.Context, opts Options) (*Report, error) {
	if opts.Dir != "" {
		// Fail now rather than after minutes of measuring.
		if err := os.MkdirAll(opts.Dir, 0o755); err != nil {
			return nil, fmt.Errorf("bench: report directory: %w", err)
		}
	}
	rep := &Report{
		Date:      time.Now().UTC(),
		GoVersion: runtime.Version(),
		CPU:       cpuModel(),
		Procs:     runtime.GOMAXPROCS(0),
		Quick:     opts.Quick,
	}
	steps := []struct {
		name string
		run  func(context.Context, *Options, *Report) error
	}{
		{"memory", runMemory},
		{"gateway overhead", runOverhead},
		{"persistent vs per-call", runPerCall},
		{"discovery", runDiscovery},
	}
	for _, s := range steps {
		opts.logf("bench: %s ...", s.name)
		start := time.Now()
		if err := s.run(ctx, &opts, rep); err != nil {
			return rep, fmt.Errorf("bench: %s: %w", s.name, err)
		}
		opts.logf("bench: %s done in %v", s.name, time.Since(start).Round(time.Millisecond))
	}
	if opts.Dir != "" {
		if err := rep.write(opts.Dir); err != nil {
			return rep, err
		}
	}
	return rep, nil
}

// write writes the report and the chart into dir.
func (r *Report) write(dir string) error {
	md := filepath.Join(dir, ReportFile)
	if err := os.WriteFile(md, []byte(r.Markdown()), 0o644); err != nil {
		return fmt.Errorf("bench: writing report: %w", err)
	}
	svg := filepath.Join(dir, ChartFile)
	if err := os.WriteFile(svg, []byte(r.SVG()), 0o644); err != nil {
		return fmt.Errorf("bench: writing chart: %w", err)
	}
	return nil
}

func (o *Options) logf(format string, args ...any) {
	if o.Log != nil {
		fmt.Fprintf(o.Log, format+"\n", args...)
	}
}

// pick returns quick in a quick run and full otherwise.
func (o *Options) pick(quick, full int) int {
	if o.Quick {
		return quick
	}
	return full
}

// cpuModel names the CPU, from /proc/cpuinfo where there is one.
func cpuModel() string {
	data, err := os.ReadFile("/proc/cpuinfo")
	if err == nil {
		for line := range strings.Lines(string(data)) {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				return strings.TrimSpace(v)
			}
		}
	}
	return runtime.GOARCH
}
