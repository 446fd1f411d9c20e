package report

// Charts are plain inline SVG written here: a few axes, lines, bars and
// marks are all the report needs, and a plotting library would bring
// scripts or a dependency for little. Every chart states its axes' ranges
// and scales in data- attributes and every mark its value in ns, so that
// tests can read back what a chart shows and check it against the logs.

import (
	"fmt"
	"html/template"
	"math"
	"strconv"
	"strings"
)

// Chart geometry, in SVG user units (pixels at 100 %).
const (
	chartW = 600.0
	chartH = 250.0
	padL   = 62.0
	padR   = 16.0
	padT   = 26.0 // the legend's band
	padB   = 40.0
)

// axis maps data values to pixels.
type axis struct {
	lo, hi   float64
	log      bool
	p0, p1   float64 // pixel range (p0 for lo)
	label    string
	tickText func(float64) string
	// nines: a percentile axis whose values are fractions plotted as
	// -log10(1-p), so that p90, p99 and p99.9 are equally spaced.
	nines bool
}

func (a axis) tf(v float64) float64 {
	switch {
	case a.nines:
		return -math.Log10(math.Max(1-v, 1e-9))
	case a.log:
		return math.Log10(math.Max(v, 1e-300))
	}
	return v
}

// pos is v's pixel coordinate, clamped to the axis.
func (a axis) pos(v float64) float64 {
	lo, hi := a.tf(a.lo), a.tf(a.hi)
	if hi <= lo {
		return (a.p0 + a.p1) / 2
	}
	f := (a.tf(v) - lo) / (hi - lo)
	f = math.Max(0, math.Min(1, f))
	return a.p0 + f*(a.p1-a.p0)
}

// ticks are the axis's labelled values: powers of ten (with 2 and 5 when
// the range spans few decades) on a log axis, 1-2-5 steps on a linear one,
// the nines on a percentile axis.
func (a axis) ticks() []float64 {
	var out []float64
	switch {
	case a.nines:
		for _, p := range []float64{0, 0.5, 0.9, 0.99, 0.999, 0.9999, 0.99999} {
			if p <= a.hi+1e-12 {
				out = append(out, p)
			}
		}
	case a.log:
		if a.lo <= 0 || a.hi <= 0 {
			return nil
		}
		e0, e1 := math.Floor(math.Log10(a.lo)), math.Ceil(math.Log10(a.hi))
		mult := []float64{1}
		if e1-e0 <= 2 {
			mult = []float64{1, 2, 5}
		}
		for e := e0; e <= e1; e++ {
			for _, m := range mult {
				if v := m * math.Pow(10, e); v >= a.lo*0.999 && v <= a.hi*1.001 {
					out = append(out, v)
				}
			}
		}
	default:
		span := a.hi - a.lo
		if span <= 0 {
			return []float64{a.lo}
		}
		step := math.Pow(10, math.Floor(math.Log10(span/5)))
		for _, m := range []float64{1, 2, 5, 10} {
			if span/(step*m) <= 6 {
				step *= m
				break
			}
		}
		for v := math.Ceil(a.lo/step) * step; v <= a.hi+step*1e-9; v += step {
			out = append(out, v)
		}
	}
	return out
}

// chart is one figure being drawn.
type chart struct {
	name   string // data-chart, for tests
	title  string
	x, y   axis
	body   strings.Builder
	legend []legendItem
	marks  int // marks drawn, to stagger their labels
}

type legendItem struct{ class, label string }

// newChart starts a chart with x and y axes over the given ranges.
func newChart(name, title string, x, y axis) *chart {
	x.p0, x.p1 = padL, chartW-padR
	y.p0, y.p1 = chartH-padB, padT
	return &chart{name: name, title: title, x: x, y: y}
}

// latencyAxis is a log axis over [lo, hi] ns with time tick labels.
func latencyAxis(label string, lo, hi float64) axis {
	lo, hi = math.Max(lo, 1), math.Max(hi, 1)
	// Widen a degenerate range, and pad by a tenth of a decade.
	if hi/lo < 1.5 {
		lo, hi = lo/1.5, hi*1.5
	}
	return axis{lo: lo / 1.25, hi: hi * 1.25, log: true, label: label, tickText: func(v float64) string { return durTick(v) }}
}

// durTick is a short tick label: "100 µs", "2 ms", "1.5 s".
func durTick(ns float64) string {
	switch a := math.Abs(ns); {
	case a == 0:
		return "0"
	case a < 1e3:
		return trimNum(ns) + " ns"
	case a < 1e6:
		return trimNum(ns/1e3) + " µs"
	case a < 1e9:
		return trimNum(ns/1e6) + " ms"
	}
	return trimNum(ns/1e9) + " s"
}

// trimNum writes a tick or figure compactly: "0.25", "1500", "300k",
// "2.5M".
func trimNum(v float64) string {
	switch a := math.Abs(v); {
	case a >= 1e6 && a < 1e12:
		return strconv.FormatFloat(v/1e6, 'g', 4, 64) + "M"
	case a >= 1e4 && a < 1e6:
		return strconv.FormatFloat(v/1e3, 'g', 4, 64) + "k"
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}

func numAxis(label string, lo, hi float64) axis {
	if hi <= lo {
		hi = lo + 1
	}
	return axis{lo: lo, hi: hi, label: label, tickText: trimNum}
}

// polyline draws a series of points in class cls (s0..s3), adding a
// legend entry when label is set.
func (c *chart) polyline(cls string, xs, ys []float64, label string) {
	if len(xs) == 0 {
		return
	}
	var pts strings.Builder
	for i := range xs {
		if math.IsNaN(ys[i]) || math.IsNaN(xs[i]) {
			continue
		}
		fmt.Fprintf(&pts, "%.1f,%.1f ", c.x.pos(xs[i]), c.y.pos(ys[i]))
	}
	fmt.Fprintf(&c.body, `<polyline class="line %s" points="%s"/>`, cls, strings.TrimSpace(pts.String()))
	if label != "" {
		c.legend = append(c.legend, legendItem{cls, label})
	}
}

// step draws a step function (a CDF): horizontal from each point to the
// next x, then vertical.
func (c *chart) step(cls string, xs, ys []float64, label string) {
	if len(xs) == 0 {
		return
	}
	var px, py []float64
	for i := range xs {
		if i > 0 {
			px, py = append(px, xs[i]), append(py, ys[i-1])
		}
		px, py = append(px, xs[i]), append(py, ys[i])
	}
	c.polyline(cls, px, py, label)
}

// bar draws a bar over [x0, x1] from the y axis's low end to y.
func (c *chart) bar(cls string, x0, x1, y float64, title string) {
	px0, px1 := c.x.pos(x0), c.x.pos(x1)
	top, base := c.y.pos(y), c.y.pos(c.y.lo)
	fmt.Fprintf(&c.body, `<rect class="bar %s" x="%.1f" y="%.1f" width="%.1f" height="%.1f"><title>%s</title></rect>`,
		cls, px0+0.5, top, math.Max(px1-px0-1, 0.5), math.Max(base-top, 0), template.HTMLEscapeString(title))
}

// span draws a horizontal bar from x0 to x1 at row y (a token timeline).
func (c *chart) span(cls string, x0, x1, y, height float64, title string) {
	px0, px1 := c.x.pos(x0), c.x.pos(x1)
	fmt.Fprintf(&c.body, `<rect class="bar %s" x="%.1f" y="%.1f" width="%.1f" height="%.1f"><title>%s</title></rect>`,
		cls, px0, c.y.pos(y)-height/2, math.Max(px1-px0, 0.8), height, template.HTMLEscapeString(title))
}

// vmark draws a vertical mark at x = ns with a label; kind is the mark's
// class and data-mark (bound, estimate, percentile).
func (c *chart) vmark(kind string, ns float64, label string) {
	x := c.x.pos(ns)
	ly := padT + 10 + float64(c.marks%3)*11
	c.marks++
	anchor := "start"
	lx := x + 3
	if x > chartW-150 {
		anchor, lx = "end", x-3
	}
	fmt.Fprintf(&c.body, `<g class="mark %s" data-mark="%s" data-ns="%.0f"><line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f"/><text x="%.1f" y="%.1f" text-anchor="%s">%s</text></g>`,
		kind, kind, ns, x, padT, x, chartH-padB, lx, ly, anchor, template.HTMLEscapeString(label))
}

// hmark draws a horizontal guide at y = v with a label at the right.
func (c *chart) hmark(kind string, v float64, label string) {
	y := c.y.pos(v)
	fmt.Fprintf(&c.body, `<g class="mark %s" data-mark="%s" data-value="%g"><line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f"/><text x="%.1f" y="%.1f" text-anchor="end">%s</text></g>`,
		kind, kind, v, padL, y, chartW-padR, y, chartW-padR-2, y-2, template.HTMLEscapeString(label))
}

// html renders the chart as a figure.
func (c *chart) html() template.HTML {
	var b strings.Builder
	fmt.Fprintf(&b, `<figure><figcaption>%s</figcaption><svg xmlns="http://www.w3.org/2000/svg" width="%g" height="%g" viewBox="0 0 %g %g" role="img" aria-label="%s" data-chart="%s" data-x-lo="%g" data-x-hi="%g" data-x-scale="%s" data-y-lo="%g" data-y-hi="%g" data-y-scale="%s">`,
		template.HTMLEscapeString(c.title), chartW, chartH, chartW, chartH, template.HTMLEscapeString(c.title), c.name,
		c.x.lo, c.x.hi, scaleName(c.x), c.y.lo, c.y.hi, scaleName(c.y))
	// Grid and ticks.
	for _, v := range c.x.ticks() {
		x := c.x.pos(v)
		fmt.Fprintf(&b, `<line class="grid" x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f"/><text class="tick" x="%.1f" y="%.1f" text-anchor="middle">%s</text>`,
			x, padT, x, chartH-padB, x, chartH-padB+13, template.HTMLEscapeString(c.x.tickText(v)))
	}
	for _, v := range c.y.ticks() {
		y := c.y.pos(v)
		label := ""
		if c.y.nines {
			label = pctOf(v)
			if v == 0 {
				label = "p0"
			}
		} else {
			label = c.y.tickText(v)
		}
		fmt.Fprintf(&b, `<line class="grid" x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f"/><text class="tick" x="%.1f" y="%.1f" text-anchor="end">%s</text>`,
			padL, y, chartW-padR, y, padL-4, y+3, template.HTMLEscapeString(label))
	}
	fmt.Fprintf(&b, `<line class="axis" x1="%g" y1="%g" x2="%g" y2="%g"/><line class="axis" x1="%g" y1="%g" x2="%g" y2="%g"/>`,
		padL, chartH-padB, chartW-padR, chartH-padB, padL, padT, padL, chartH-padB)
	fmt.Fprintf(&b, `<text class="axlabel" x="%g" y="%g" text-anchor="middle">%s</text>`, (padL+chartW-padR)/2, chartH-6, template.HTMLEscapeString(c.x.label))
	fmt.Fprintf(&b, `<text class="axlabel" x="12" y="%g" text-anchor="middle" transform="rotate(-90 12 %g)">%s</text>`, (padT+chartH-padB)/2, (padT+chartH-padB)/2, template.HTMLEscapeString(c.y.label))
	b.WriteString(c.body.String())
	// The legend sits in the band above the plot, right-aligned, where no
	// mark or line runs.
	x := chartW - padR
	for i := len(c.legend) - 1; i >= 0; i-- {
		l := c.legend[i]
		x -= 14 + 6.2*float64(len([]rune(l.label))) + 12
		fmt.Fprintf(&b, `<g class="legend"><rect class="key %s" x="%.1f" y="7" width="10" height="10"/><text x="%.1f" y="16">%s</text></g>`,
			l.class, x, x+14, template.HTMLEscapeString(l.label))
	}
	b.WriteString(`</svg></figure>`)
	return template.HTML(b.String())
}

func scaleName(a axis) string {
	switch {
	case a.nines:
		return "nines"
	case a.log:
		return "log"
	}
	return "linear"
}
