// Command toolgate-bench measures toolgate against its baselines and writes
// the figures to BENCHMARKS.md and benchmarks-latency.svg:
//
//	go run ./cmd/toolgate-bench          # the full run, a few minutes
//	go run ./cmd/toolgate-bench -quick   # every comparison, rough figures, seconds
//
// It compares Manager.CallTool with a bare go-sdk session on every
// transport, a persistent session with connect-per-call, concurrent with
// sequential discovery, and checks the memory budget. See package
// internal/bench.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"

	"github.com/toolgate/toolgate/internal/bench"
	"github.com/toolgate/toolgate/internal/testserver"
)

func main() {
	testserver.MainIfRequested() // the stdio servers measured are this binary, re-executed

	quick := flag.Bool("quick", false, "run a few calls per comparison: rough figures in seconds")
	dir := flag.String("dir", ".", "where to write "+bench.ReportFile+" and "+bench.ChartFile+` ("" writes nothing)`)
	noEverything := flag.Bool("no-everything", false, "skip the comparison with server-everything (node)")
	flag.Parse()

	opts := bench.Options{Quick: *quick, Dir: *dir, Log: os.Stderr}
	if !*noEverything {
		ev, err := bench.FindEverything(".")
		if err != nil {
			fmt.Fprintf(os.Stderr, "toolgate-bench: %v; run scripts/test-deps.sh to compare with it\n", err)
		}
		opts.Everything = ev
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	rep, err := bench.Run(ctx, opts)
	if rep != nil && len(rep.Rows) > 0 { // what was measured, even if a step failed after it
		fmt.Print(rep.Table())
		for _, n := range rep.Notes {
			fmt.Println("\nNote:", n)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "toolgate-bench:", err)
		os.Exit(1)
	}
	if *dir != "" {
		fmt.Fprintf(os.Stderr, "toolgate-bench: wrote %s and %s in %s\n", bench.ReportFile, bench.ChartFile, *dir)
	}
}
