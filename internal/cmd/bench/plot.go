package main

import (
	"fmt"
	"math"
	"os"
	"strings"
)

// plotSVG draws the round-trip figures against concurrency, one line per
// flow: round trips per second (left) and p50 latency (right), both on log
// axes. Legacy flows are solid, modern flows dashed; each server keeps its
// colour in both eras. It is hand-written SVG so that make bench needs no
// plotting package.
func (r *report) plotSVG(path string) error {
	if len(r.concs) < 2 {
		return fmt.Errorf("-plot needs at least two concurrencies (-conc), got %v", r.concs)
	}
	type series struct {
		name   string
		dashed bool
		colour string
		tput   []float64
		p50    []float64
	}
	colours := map[string]string{serverOurs: "#1f6feb", serverGoSDK: "#d1242f", serverMCPGo: "#8250df", serverFloor: "#6e7781", serverTraced: "#1a7f37"}
	var all []series
	for _, f := range flows {
		s := series{name: f.name, dashed: f.era == eraModern, colour: colours[f.server]}
		for _, conc := range r.concs {
			row := r.rows[rtKey{f.name, conc}]
			if row == nil {
				s.tput, s.p50 = nil, nil
				break
			}
			s.tput = append(s.tput, row.median(window.perSecond))
			s.p50 = append(s.p50, float64(row.percentile(0.50).Microseconds()))
		}
		if len(s.tput) == len(r.concs) {
			all = append(all, s)
		}
	}
	if len(all) == 0 {
		return fmt.Errorf("-plot: no flow has figures at every concurrency")
	}

	const (
		panelW, panelH = 400.0, 300.0
		left, top      = 70.0, 40.0
		gap            = 110.0
		legendH        = 22.0
	)
	width := left + 2*panelW + gap + 30
	height := top + panelH + 60 + legendH*float64((len(all)+3)/4)
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" viewBox="0 0 %.0f %.0f" font-family="sans-serif" font-size="12">`+"\n", width, height, width, height)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")

	logRange := func(get func(series) []float64) (lo, hi float64) {
		lo, hi = math.Inf(1), math.Inf(-1)
		for _, s := range all {
			for _, v := range get(s) {
				if v > 0 {
					lo, hi = math.Min(lo, v), math.Max(hi, v)
				}
			}
		}
		return math.Pow(10, math.Floor(math.Log10(lo))), math.Pow(10, math.Ceil(math.Log10(hi)))
	}
	cLo, cHi := math.Log2(float64(r.concs[0])), math.Log2(float64(r.concs[len(r.concs)-1]))
	panel := func(x0 float64, title, unit string, get func(series) []float64) {
		lo, hi := logRange(get)
		xOf := func(c int) float64 { return x0 + (math.Log2(float64(c))-cLo)/(cHi-cLo)*panelW }
		yOf := func(v float64) float64 {
			return top + panelH - (math.Log10(v)-math.Log10(lo))/(math.Log10(hi)-math.Log10(lo))*panelH
		}
		fmt.Fprintf(&b, `<text x="%.0f" y="%.0f" font-size="14" font-weight="bold">%s</text>`+"\n", x0, top-15, title)
		fmt.Fprintf(&b, `<rect x="%.0f" y="%.0f" width="%.0f" height="%.0f" fill="none" stroke="#999"/>`+"\n", x0, top, panelW, panelH)
		for d := lo; d <= hi*1.0001; d *= 10 {
			for _, m := range []float64{1, 2, 5} {
				v := d * m
				if v > hi*1.0001 {
					break
				}
				y := yOf(v)
				fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#eee"/>`+"\n", x0, y, x0+panelW, y)
				fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="end">%s</text>`+"\n", x0-5, y+4, compact(v))
			}
		}
		for _, c := range r.concs {
			x := xOf(c)
			fmt.Fprintf(&b, `<line x1="%.1f" y1="%.0f" x2="%.1f" y2="%.0f" stroke="#eee"/>`+"\n", x, top, x, top+panelH)
			fmt.Fprintf(&b, `<text x="%.1f" y="%.0f" text-anchor="middle">%d</text>`+"\n", x, top+panelH+16, c)
		}
		fmt.Fprintf(&b, `<text x="%.0f" y="%.0f" text-anchor="middle">concurrency (workers)</text>`+"\n", x0+panelW/2, top+panelH+34)
		fmt.Fprintf(&b, `<text transform="translate(%.0f,%.0f) rotate(-90)" text-anchor="middle">%s</text>`+"\n", x0-52, top+panelH/2, unit)
		for _, s := range all {
			var pts []string
			for i, v := range get(s) {
				pts = append(pts, fmt.Sprintf("%.1f,%.1f", xOf(r.concs[i]), yOf(v)))
			}
			dash := ""
			if s.dashed {
				dash = ` stroke-dasharray="6,4"`
			}
			fmt.Fprintf(&b, `<polyline points="%s" fill="none" stroke="%s" stroke-width="2"%s/>`+"\n", strings.Join(pts, " "), s.colour, dash)
			for _, p := range pts {
				xy := strings.Split(p, ",")
				fmt.Fprintf(&b, `<circle cx="%s" cy="%s" r="3" fill="%s"/>`+"\n", xy[0], xy[1], s.colour)
			}
		}
	}
	panel(left, "Round trips per second (higher is better)", "round trips/s", func(s series) []float64 { return s.tput })
	panel(left+panelW+gap, "p50 latency (lower is better)", "µs", func(s series) []float64 { return s.p50 })

	y0 := top + panelH + 60
	for i, s := range all {
		x := left + float64(i%4)*230
		y := y0 + float64(i/4)*legendH
		dash := ""
		if s.dashed {
			dash = ` stroke-dasharray="6,4"`
		}
		fmt.Fprintf(&b, `<line x1="%.0f" y1="%.0f" x2="%.0f" y2="%.0f" stroke="%s" stroke-width="2"%s/>`+"\n", x, y-4, x+30, y-4, s.colour, dash)
		fmt.Fprintf(&b, `<text x="%.0f" y="%.0f">%s</text>`+"\n", x+38, y, s.name)
	}
	b.WriteString("</svg>\n")
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

// compact prints an axis value: 500, 2k, 10k, 1M.
func compact(v float64) string {
	switch {
	case v >= 1e6:
		return trimZero(v/1e6) + "M"
	case v >= 1e3:
		return trimZero(v/1e3) + "k"
	default:
		return trimZero(v)
	}
}

func trimZero(v float64) string { return strings.TrimSuffix(fmt.Sprintf("%.1f", v), ".0") }
