package bench

import (
	"context"
	"encoding/xml"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/testserver"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	testserver.MainIfRequested()
	goleak.VerifyTestMain(m)
}

// TestQuickRun runs every comparison with a few calls: a smoke test of the
// benchmark command, not a measurement (the figures are not checked).
func TestQuickRun(t *testing.T) {
	opts := Options{Quick: true, Dir: t.TempDir()}
	ev, err := FindEverything(filepath.Join("..", ".."))
	if err != nil && os.Getenv("CI") == "true" {
		t.Fatalf("%v; scripts/test-deps.sh installs it", err)
	}
	opts.Everything = ev
	if testing.Verbose() {
		opts.Log = os.Stderr
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	rep, err := Run(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	sections := map[string]int{}
	for _, r := range rep.Rows {
		sections[r.Section]++
		if r.AMedian == "" {
			t.Errorf("row %q has no figure", r.Name)
		}
	}
	want := map[string]int{
		"Memory":           2,
		"Gateway overhead": 12, // 3 transports × {1, 64} callers × {latency, throughput}
		"Persistent session vs connect per call (stdio)": 1,
		"Discovery": 3,
	}
	if ev != nil {
		want["Persistent session vs connect per call (stdio)"] = 2
	}
	for s, n := range want {
		if sections[s] != n {
			t.Errorf("section %q has %d rows, want %d", s, sections[s], n)
		}
	}
	if len(rep.Curves) != 6 {
		t.Errorf("%d curves, want 6 (toolgate and bare go-sdk on 3 transports)", len(rep.Curves))
	}

	md, err := os.ReadFile(filepath.Join(opts.Dir, ReportFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"| comparison | A | B |", rep.GoVersion, "CPU: ", ChartFile, "stdio, 64 callers"} {
		if !strings.Contains(string(md), s) {
			t.Errorf("%s lacks %q", ReportFile, s)
		}
	}
	svg, err := os.ReadFile(filepath.Join(opts.Dir, ChartFile))
	if err != nil {
		t.Fatal(err)
	}
	checkSVG(t, svg, 6)
}

// checkSVG checks that svg is well-formed XML with the given number of curves.
func checkSVG(t *testing.T, svg []byte, curves int) {
	t.Helper()
	dec := xml.NewDecoder(strings.NewReader(string(svg)))
	lines := 0
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("chart is not well-formed XML: %v", err)
		}
		if el, ok := tok.(xml.StartElement); ok && el.Name.Local == "polyline" {
			lines++
		}
	}
	if lines != curves {
		t.Errorf("chart has %d polylines, want %d", lines, curves)
	}
}

func TestInterleaveAlternates(t *testing.T) {
	var order strings.Builder
	mark := func(s string) func(context.Context) (sample, error) {
		return func(context.Context) (sample, error) {
			order.WriteString(s)
			return sample{lat: []time.Duration{time.Millisecond}, wall: time.Millisecond}, nil
		}
	}
	rounds, err := interleave(context.Background(), 3, side{"a", mark("A")}, side{"b", mark("B")})
	if err != nil {
		t.Fatal(err)
	}
	if order.String() != "ABABAB" || len(rounds[0]) != 3 || len(rounds[1]) != 3 {
		t.Errorf("order %q, rounds %d and %d", order.String(), len(rounds[0]), len(rounds[1]))
	}
}

func TestSummarize(t *testing.T) {
	var lat []time.Duration
	for i := 1; i <= 100; i++ {
		lat = append(lat, time.Duration(i)*time.Microsecond)
	}
	st := summarize([]sample{{lat: lat[:50], wall: time.Second}, {lat: lat[50:], wall: 2 * time.Second}})
	if st.median != 50*time.Microsecond || st.p99 != 99*time.Microsecond || st.n != 100 {
		t.Errorf("summarize = %+v", st)
	}
	if st.throughput != 50 { // the median of 50/s and 25/s rounds is the upper one
		t.Errorf("throughput = %v", st.throughput)
	}
	if quantile(nil, 0.5) != 0 {
		t.Error("quantile of nothing is not 0")
	}
}

func TestChartWithoutData(t *testing.T) {
	checkSVG(t, []byte((&Report{}).SVG()), 0)
}
