package fallback

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/htmltest"
)

// cpuTime is the CPU time the process has used, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func median(d []time.Duration) float64 {
	slices.Sort(d)
	return float64(d[len(d)/2].Microseconds()) / 1000
}

// BenchmarkConvert1MB converts a 1 MB HTML page (parsing included) to
// Markdown and reports, besides the mean, the median wall time per
// conversion and the median CPU time of the process per conversion (GC
// included), which is the steadier figure when other work shares the
// cores.
func BenchmarkConvert1MB(b *testing.B) {
	page := htmltest.BigPage(1 << 20)
	for _, main := range []bool{false, true} {
		b.Run(fmt.Sprintf("main=%v", main), func(b *testing.B) { benchConvert(b, page, main) })
	}
}

// BenchmarkConvertRealPage converts a real 1 MB page, a Wikipedia article
// from readability's test pages, the way BenchmarkConvert1MB does.
func BenchmarkConvertRealPage(b *testing.B) {
	body, err := os.ReadFile(htmltest.RealPages(b)["wikipedia-2"])
	if err != nil {
		b.Fatal(err)
	}
	page := decodeHTML(body, "text/html")
	for _, main := range []bool{false, true} {
		b.Run(fmt.Sprintf("main=%v", main), func(b *testing.B) { benchConvert(b, page, main) })
	}
}

func benchConvert(b *testing.B, page string, main bool) {
	f, err := New(Options{MainContent: main})
	if err != nil {
		b.Fatal(err)
	}
	u, _ := url.Parse("https://example.com/big")
	ctx := context.Background()
	b.SetBytes(int64(len(page)))
	b.ReportAllocs()
	wall := make([]time.Duration, 0, b.N)
	cpu := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start, startCPU := time.Now(), cpuTime()
		_, md, err := f.htmlToMarkdown(ctx, u, page)
		wall = append(wall, time.Since(start))
		cpu = append(cpu, cpuTime()-startCPU)
		if err != nil || len(md) < 1000 {
			b.Fatalf("convert: %v, %d bytes of Markdown", err, len(md))
		}
	}
	b.StopTimer()
	b.ReportMetric(median(wall), "median-ms")
	b.ReportMetric(median(cpu), "median-cpu-ms")
}
