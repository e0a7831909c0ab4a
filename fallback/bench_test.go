package fallback

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// bigPage returns an HTML page of about size bytes: navigation, then
// sections with headings, paragraphs with links and emphasis, lists,
// tables and code, then a footer.
func bigPage(size int) string {
	var b strings.Builder
	b.WriteString(`<!DOCTYPE html><html><head><title>Big page</title><style>p{margin:0}</style></head><body>
<nav><ul><li><a href="/">Home</a></li><li><a href="/docs">Docs</a></li><li><a href="/blog">Blog</a></li></ul></nav><main>`)
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, `<section id="s%d"><h2>Section %d</h2>
<p>The gateway keeps <strong>one session</strong> per server and applies <em>timeouts</em>, cancellation and
policy the same way on every transport. See <a href="/docs/%d?ref=big&amp;n=%d">the reference</a> and
<code>CallTool</code> for details &mdash; all of it in one stable shape.</p>
<ul><li>first point %d</li><li>second point with <a href="https://example.com/%d">a link</a></li><li>third point</li></ul>
<table><thead><tr><th>name</th><th>value</th></tr></thead><tbody><tr><td>calls</td><td>%d</td></tr><tr><td>errors</td><td>0</td></tr></tbody></table>
<pre><code>res := m.CallTool(ctx, "calc", "evaluate", args) // %d</code></pre>
<blockquote><p>Quoted text number %d, with a line that is long enough to wrap in most readers of Markdown.</p></blockquote></section>
`, i, i, i, i, i, i, i, i, i)
	}
	b.WriteString(`</main><footer><p>Copyright</p></footer></body></html>`)
	return b.String()
}

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
	page := bigPage(1 << 20)
	for _, main := range []bool{false, true} {
		b.Run(fmt.Sprintf("main=%v", main), func(b *testing.B) { benchConvert(b, page, main) })
	}
}

// BenchmarkConvertRealPage converts a real 1 MB page, a Wikipedia article
// from readability's test pages, the way BenchmarkConvert1MB does.
func BenchmarkConvertRealPage(b *testing.B) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "codeberg.org/readeck/go-readability/v2").Output()
	if err != nil {
		b.Fatalf("finding readability's test pages: %v", err)
	}
	body, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(out)), "test-pages", "wikipedia-2", "source.html"))
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
