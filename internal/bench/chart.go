package bench

import (
	"fmt"
	"html"
	"math"
	"slices"
	"strings"
	"time"
)

// Chart geometry, in SVG user units.
const (
	chartW, chartH                  = 800, 460
	plotL, plotR, plotT, plotB      = 80, 560, 40, 400 // the plot area's edges
	legendX, legendY, legendLineGap = 580, 60, 22
)

// palette colours the curves by transport, in order of first appearance.
var palette = []string{"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e"}

// SVG draws the median latency of every curve against the number of
// concurrent callers, both axes logarithmic: toolgate solid, the bare
// go-sdk dashed, one colour per transport.
func (r *Report) SVG() string {
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n",
		chartW, chartH, chartW, chartH)
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="white"/>`+"\n", chartW, chartH)
	fmt.Fprintf(&b, `<text x="%d" y="22" font-size="15" text-anchor="middle">Median call latency against concurrent callers (%s)</text>`+"\n",
		(plotL+plotR)/2, html.EscapeString(r.GoVersion))
	xs, lo, hi := r.axes()
	if len(xs) == 0 {
		b.WriteString(`<text x="320" y="220">no data</text>` + "\n</svg>\n")
		return b.String()
	}
	xOf := func(c int) float64 {
		if len(xs) == 1 {
			return (plotL + plotR) / 2
		}
		span := math.Log2(float64(xs[len(xs)-1])) - math.Log2(float64(xs[0]))
		return plotL + (math.Log2(float64(c))-math.Log2(float64(xs[0])))/span*(plotR-plotL)
	}
	yOf := func(d time.Duration) float64 {
		return plotB - (math.Log10(float64(d))-lo)/(hi-lo)*(plotB-plotT)
	}
	drawAxes(&b, xs, lo, hi, xOf)
	colours := map[string]string{}
	for i, c := range r.Curves {
		transport := c.Label[strings.LastIndex(c.Label, ", ")+2:]
		col, ok := colours[transport]
		if !ok {
			col = palette[len(colours)%len(palette)]
			colours[transport] = col
		}
		dash := ""
		if c.Dashed {
			dash = ` stroke-dasharray="6 4"`
		}
		var pts []string
		for _, p := range c.Points {
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", xOf(p.Callers), yOf(p.Median)))
		}
		fmt.Fprintf(&b, `<polyline fill="none" stroke="%s" stroke-width="2"%s points="%s"/>`+"\n", col, dash, strings.Join(pts, " "))
		for _, p := range c.Points {
			fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="3" fill="%s"><title>%s: %d callers, %s</title></circle>`+"\n",
				xOf(p.Callers), yOf(p.Median), col, html.EscapeString(c.Label), p.Callers, dur(p.Median))
		}
		y := legendY + i*legendLineGap
		fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="2"%s/>`+"\n",
			legendX, y, legendX+30, y, col, dash)
		fmt.Fprintf(&b, `<text x="%d" y="%d">%s</text>`+"\n", legendX+38, y+4, html.EscapeString(c.Label))
	}
	b.WriteString("</svg>\n")
	return b.String()
}

// axes returns the concurrencies measured and the decades (log10 of
// nanoseconds) that the latency axis spans.
func (r *Report) axes() (xs []int, lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, c := range r.Curves {
		for _, p := range c.Points {
			if p.Median <= 0 {
				continue
			}
			if !slices.Contains(xs, p.Callers) {
				xs = append(xs, p.Callers)
			}
			v := math.Log10(float64(p.Median))
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	slices.Sort(xs)
	lo, hi = math.Floor(lo), math.Ceil(hi)
	if hi <= lo {
		hi = lo + 1
	}
	return xs, lo, hi
}

// drawAxes draws the frame, a tick and grid line per concurrency, and one
// per decade of latency.
func drawAxes(b *strings.Builder, xs []int, lo, hi float64, xOf func(int) float64) {
	fmt.Fprintf(b, `<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="#333"/>`+"\n",
		plotL, plotT, plotR-plotL, plotB-plotT)
	for _, c := range xs {
		x := xOf(c)
		fmt.Fprintf(b, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#ddd"/>`+"\n", x, plotT, x, plotB)
		fmt.Fprintf(b, `<text x="%.1f" y="%d" text-anchor="middle">%d</text>`+"\n", x, plotB+18, c)
	}
	fmt.Fprintf(b, `<text x="%d" y="%d" text-anchor="middle">concurrent callers</text>`+"\n", (plotL+plotR)/2, plotB+40)
	for d := lo; d <= hi; d++ {
		y := plotB - (d-lo)/(hi-lo)*(plotB-plotT)
		fmt.Fprintf(b, `<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#ddd"/>`+"\n", plotL, y, plotR, y)
		fmt.Fprintf(b, `<text x="%d" y="%.1f" text-anchor="end">%s</text>`+"\n",
			plotL-6, y+4, dur(time.Duration(math.Pow(10, d))))
	}
	fmt.Fprintf(b, `<text x="20" y="%d" text-anchor="middle" transform="rotate(-90 20 %d)">median latency (log scale)</text>`+"\n",
		(plotT+plotB)/2, (plotT+plotB)/2)
}
