package dashboard

import (
	"bufio"
	"fmt"
	"html"
	"io"
	"math"
	"slices"
	"strconv"
	"time"
)

// SVG chart of a dashboard run: two panels side by side, QPS and p99
// latency against virtual users, one line per side. Written by hand with
// fixed-precision coordinates, so the same results give the same bytes.

const (
	svgWidth    = 960
	svgHeight   = 420
	panelWidth  = 470
	plotLeft    = 70 // from the panel's left edge
	plotRight   = 20
	plotTop     = 90
	plotBottom  = 60 // from the image's bottom edge
	tickCount   = 5
	svgFont     = "font-family=\"sans-serif\" font-size=\"12\""
	gridColor   = "#dddddd"
	axisColor   = "#333333"
	legendWidth = 110
)

// seriesColors are the line colours, by order of first appearance.
var seriesColors = []string{"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e"}

// panel is one chart of the SVG: a value per step result.
type panel struct {
	title string
	value func(StepResult) float64
}

// WriteSVG draws rs (from RunDashboard) as an SVG image titled title.
func WriteSVG(w io.Writer, title string, rs []StepResult) error {
	bw := bufio.NewWriter(w)
	var sides []string
	maxUsers := 0
	for _, r := range rs {
		if !slices.Contains(sides, r.Side) {
			sides = append(sides, r.Side)
		}
		maxUsers = max(maxUsers, r.Users)
	}
	fmt.Fprintf(bw, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" %s>\n",
		svgWidth, svgHeight, svgWidth, svgHeight, svgFont)
	fmt.Fprintf(bw, "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>\n", svgWidth, svgHeight)
	fmt.Fprintf(bw, "<text x=\"%d\" y=\"24\" text-anchor=\"middle\" font-size=\"16\" font-weight=\"bold\">%s</text>\n",
		svgWidth/2, html.EscapeString(title))
	// Legend, centred under the title.
	lx := float64(svgWidth)/2 - float64(len(sides)*legendWidth)/2
	for i, s := range sides {
		x := lx + float64(i*legendWidth)
		fmt.Fprintf(bw, "<line x1=\"%.1f\" y1=\"44\" x2=\"%.1f\" y2=\"44\" stroke=\"%s\" stroke-width=\"2.5\"/>\n", x, x+24, color(i))
		fmt.Fprintf(bw, "<text x=\"%.1f\" y=\"48\">%s</text>\n", x+30, html.EscapeString(s))
	}
	panels := []panel{
		{"throughput (queries/s)", StepResult.QPS},
		{"p99 latency (ms)", func(r StepResult) float64 { return ms(r.Latency.P99) }},
	}
	for i, p := range panels {
		drawPanel(bw, float64(i*panelWidth), p, sides, rs, maxUsers)
	}
	fmt.Fprintln(bw, "</svg>")
	return bw.Flush()
}

func drawPanel(w io.Writer, x0 float64, p panel, sides []string, rs []StepResult, maxUsers int) {
	left, right := x0+plotLeft, x0+panelWidth-plotRight
	top, bottom := float64(plotTop), float64(svgHeight-plotBottom)
	var vs []float64
	for _, r := range rs {
		vs = append(vs, p.value(r))
	}
	xa, ya := linearAxis(float64(maxUsers)), valueAxis(vs)
	px := func(v float64) float64 { return left + (right-left)*xa.frac(v) }
	py := func(v float64) float64 { return bottom - (bottom-top)*ya.frac(v) }

	title := p.title
	if ya.log {
		title += ", log scale"
	}
	fmt.Fprintf(w, "<g>\n<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"14\">%s</text>\n",
		(left+right)/2, top-16, html.EscapeString(title))
	for _, v := range xa.ticks {
		x := px(v)
		fmt.Fprintf(w, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"/>\n", x, top, x, bottom, gridColor)
		fmt.Fprintf(w, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n", x, bottom+16, xa.label(v))
	}
	for _, v := range ya.ticks {
		y := py(v)
		fmt.Fprintf(w, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"/>\n", left, y, right, y, gridColor)
		fmt.Fprintf(w, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n", left-6, y+4, ya.label(v))
	}
	fmt.Fprintf(w, "<polyline points=\"%.1f,%.1f %.1f,%.1f %.1f,%.1f\" fill=\"none\" stroke=\"%s\"/>\n",
		left, top, left, bottom, right, bottom, axisColor)
	fmt.Fprintf(w, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">virtual users</text>\n", (left+right)/2, bottom+40)

	for i, s := range sides {
		var pts []StepResult
		for _, r := range rs {
			if r.Side == s {
				pts = append(pts, r)
			}
		}
		slices.SortStableFunc(pts, func(a, b StepResult) int { return a.Users - b.Users })
		fmt.Fprintf(w, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2.5\" points=\"", color(i))
		for j, r := range pts {
			if j > 0 {
				fmt.Fprint(w, " ")
			}
			fmt.Fprintf(w, "%.1f,%.1f", px(float64(r.Users)), py(p.value(r)))
		}
		fmt.Fprintln(w, "\"/>")
		for _, r := range pts {
			fmt.Fprintf(w, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"%s\"><title>%s, %d users: %.2f</title></circle>\n",
				px(float64(r.Users)), py(p.value(r)), color(i), html.EscapeString(s), r.Users, p.value(r))
		}
	}
	fmt.Fprintln(w, "</g>")
}

func color(i int) string { return seriesColors[i%len(seriesColors)] }

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// axis maps values to [0, 1] along one side of a plot: linear from 0, or
// logarithmic between two powers of ten.
type axis struct {
	log      bool
	lo, hi   float64
	ticks    []float64
	decimals int // of the linear tick labels
}

// logSpan is the ratio of largest to smallest positive value past which a
// value axis is logarithmic: a pinned copy can answer a thousand times
// faster than a replica, and a linear axis would draw it flat on zero.
const logSpan = 50

// valueAxis is the axis of the values vs: linear from 0, or logarithmic
// when they span more than logSpan.
func valueAxis(vs []float64) axis {
	lo, hi := math.Inf(1), 0.0
	for _, v := range vs {
		if v > 0 {
			lo, hi = min(lo, v), max(hi, v)
		}
	}
	if hi > 0 && hi/lo > logSpan {
		return logAxis(lo, hi)
	}
	return linearAxis(hi)
}

// linearAxis covers [0, v] with about tickCount ticks at 1, 2 or 5 times
// a power of ten.
func linearAxis(v float64) axis {
	if !(v > 0) || math.IsInf(v, 0) {
		return axis{hi: 1, ticks: []float64{0, 0.2, 0.4, 0.6, 0.8, 1}, decimals: 1}
	}
	raw := v / tickCount
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	var step float64
	switch norm := raw / mag; {
	case norm <= 1:
		step = mag
	case norm <= 2:
		step = 2 * mag
	case norm <= 5:
		step = 5 * mag
	default:
		step = 10 * mag
	}
	n := int(math.Ceil(v/step - 1e-9))
	a := axis{hi: float64(n) * step, decimals: max(0, int(-math.Floor(math.Log10(step)+1e-9)))}
	for i := 0; i <= n; i++ {
		a.ticks = append(a.ticks, float64(i)*step)
	}
	return a
}

// logAxis covers [lo, hi] (both > 0) from the power of ten at or below lo
// to the one at or above hi, with a tick at each power.
func logAxis(lo, hi float64) axis {
	e0, e1 := math.Floor(math.Log10(lo)+1e-9), math.Ceil(math.Log10(hi)-1e-9)
	if e1 <= e0 {
		e1 = e0 + 1
	}
	a := axis{log: true, lo: math.Pow(10, e0), hi: math.Pow(10, e1)}
	for e := e0; e <= e1; e++ {
		a.ticks = append(a.ticks, math.Pow(10, e))
	}
	return a
}

// frac is v's position on the axis, 0 at the start and 1 at the end;
// zero and negative values sit at the start of a logarithmic axis.
func (a axis) frac(v float64) float64 {
	if a.log {
		v = max(v, a.lo)
		return (math.Log10(v) - math.Log10(a.lo)) / (math.Log10(a.hi) - math.Log10(a.lo))
	}
	return (v - a.lo) / (a.hi - a.lo)
}

func (a axis) label(v float64) string {
	if a.log {
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return fmt.Sprintf("%.*f", a.decimals, v)
}
