package report

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"math"
	"strings"
)

// The HTML reports are one self-contained page each: the templates, the
// vendored chart library (uPlot, see assets/README.md) and our own script
// and style are embedded here and inlined into the page, and the page's
// Content-Security-Policy forbids every request, so a report attached to a
// mail reads the same offline as it does from kdelta serve.

//go:embed assets/uPlot.iife.min.js assets/uPlot.min.css assets/kdelta.js assets/kdelta.css assets/page.html
var htmlAssets embed.FS

// htmlTemplates are the page and its parts, parsed once.
var htmlTemplates = template.Must(template.New("page.html").Funcs(template.FuncMap{
	"num":     Num,
	"pct":     Pct,
	"pvalue":  PValue,
	"letter":  letter,
	"verdict": verdictLine,
	"interval": func(ci [2]float64) string {
		return Interval(ci)
	},
	"metric": metricLabel,
}).ParseFS(htmlAssets, "assets/page.html"))

func asset(name string) string {
	b, err := htmlAssets.ReadFile("assets/" + name)
	if err != nil {
		panic(err) // embedded: cannot happen
	}
	return string(b)
}

var (
	uplotJS  = asset("uPlot.iife.min.js")
	uplotCSS = asset("uPlot.min.css")
	pageJS   = asset("kdelta.js")
	pageCSS  = asset("kdelta.css")
)

// ScriptSrc is the script-src of the pages' Content-Security-Policy: the
// SHA-256 of each script they carry, so that no other script runs, not
// even one a label smuggled into the page, while the file still works
// offline. The data is JSON in a script element of its own type, which
// a browser never runs.
var ScriptSrc = scriptHashes(uplotJS, pageJS)

// CSP is the pages' whole policy: no request, no script but theirs, no
// form sent elsewhere. kdelta serve sends it as a header too.
var CSP = "default-src 'none'; script-src " + ScriptSrc + "; style-src 'unsafe-inline'; img-src data:; form-action 'self'"

func scriptHashes(scripts ...string) string {
	var hs []string
	for _, s := range scripts {
		sum := sha256.Sum256([]byte(s))
		hs = append(hs, "'sha256-"+base64.StdEncoding.EncodeToString(sum[:])+"'")
	}
	return strings.Join(hs, " ")
}

// HTMLFormat is the --format value of the HTML reports.
const HTMLFormat = "html"

// A Link is a labelled URL of a page's navigation.
type Link struct {
	Text, URL string
}

// HTMLOptions are what a page's caller adds to a report: kdelta serve's
// navigation and links between its pages. The zero value makes the
// stand-alone file.
type HTMLOptions struct {
	// Nav are links shown above the report.
	Nav []Link
	// CompareURL, when set, returns the address of the comparison of the
	// sets a with the sets b: history links each step to the comparison
	// of the builds on its two sides.
	CompareURL func(a, b []string) string
	// MaxPoints bounds the marks of one plot; 0 means DefaultMaxPoints.
	// Plots of more runs or operations show an even subset of them, and
	// the tables beside them keep the exact statistics.
	MaxPoints int
}

// DefaultMaxPoints is the most marks a plot draws.
const DefaultMaxPoints = 4000

func (o HTMLOptions) maxPoints() int {
	if o.MaxPoints > 0 {
		return o.MaxPoints
	}
	return DefaultMaxPoints
}

// A chart is what kdelta.js draws in the element of the same id: its
// series of points (one or more per set), the marks drawn beside them and
// its axes. Its JSON is the page's data; the test reads the drawn chart
// back against it.
type chart struct {
	ID    string `json:"id"`
	Kind  string `json:"kind"` // strip, order, history, cdf, hist
	Title string `json:"title"`
	YUnit string `json:"yunit,omitempty"`
	XUnit string `json:"xunit,omitempty"`
	// XTime: x values are Unix seconds; XNames: x values are indices
	// into these names (the sets of a strip plot, the builds of a
	// history).
	XTime  bool     `json:"xtime,omitempty"`
	XNames []string `json:"xnames,omitempty"`
	LogX   bool     `json:"logx,omitempty"`
	LogY   bool     `json:"logy,omitempty"`
	Series []series `json:"series"`
	// Lines are the medians, intervals and segment means drawn over the
	// points.
	Lines []mark `json:"lines,omitempty"`
	// Steps are history's change points.
	Steps []step `json:"steps,omitempty"`
	// Runs is how many runs the data has; Shown how many points the
	// series hold (fewer when downsampled).
	Runs  int `json:"runs"`
	Shown int `json:"shown"`
}

// A series is one set's points of a chart, or its outliers.
type series struct {
	Name string    `json:"name"`
	Set  int       `json:"set"` // the set's position, for its colour
	X    []float64 `json:"x"`
	Y    []float64 `json:"y"`
	// Run is each point's run number (1-based, as tables and warnings
	// number runs); absent for distributions.
	Run []int `json:"run,omitempty"`
	// Role: runs, outliers (runs a warning names), line (a CDF,
	// histogram or median line; not runs).
	Role string `json:"role"`
}

// A mark is a segment drawn over the points: a median, an interval, a
// segment's mean.
type mark struct {
	Kind   string  `json:"kind"` // median, interval, segment
	Set    int     `json:"set"`
	X0     float64 `json:"x0"`
	X1     float64 `json:"x1"`
	Y0     float64 `json:"y0"`
	Y1     float64 `json:"y1"`
	Label  string  `json:"label,omitempty"`
	Values float64 `json:"value,omitempty"`
}

// A step is a change point of a history chart, at the x of the first
// build after it.
type step struct {
	X     float64 `json:"x"`
	Label string  `json:"label"`
	Link  string  `json:"link,omitempty"`
}

// htmlPage is what page.html renders.
type htmlPage struct {
	Title    string
	Nav      []Link
	Body     template.HTML
	Data     template.JS
	UPlotJS  template.JS
	UPlotCSS template.CSS
	JS       template.JS
	CSS      template.CSS
	CSP      string
}

// WriteHTMLPage writes a page of title with body, already escaped HTML
// (kdelta serve's lists), in the frame of the reports.
func WriteHTMLPage(w io.Writer, title string, body template.HTML, opt HTMLOptions) error {
	return writePage(w, title, body, nil, opt)
}

// writePage renders the frame around body with the charts' data.
func writePage(w io.Writer, title string, body template.HTML, charts []chart, opt HTMLOptions) error {
	if charts == nil {
		charts = []chart{}
	}
	// encoding/json escapes <, > and & in strings, so the data cannot
	// close its script element whatever a label holds.
	data, err := json.Marshal(charts)
	if err != nil {
		return err
	}
	p := htmlPage{Title: title, Nav: opt.Nav, Body: body, Data: template.JS(data),
		UPlotJS: template.JS(uplotJS), UPlotCSS: template.CSS(uplotCSS), JS: template.JS(pageJS), CSS: template.CSS(pageCSS), CSP: CSP}
	return htmlTemplates.ExecuteTemplate(w, "page.html", p)
}

// part renders the named template of page.html into HTML for a page body.
func part(name string, data any) (template.HTML, error) {
	var b bytes.Buffer
	if err := htmlTemplates.ExecuteTemplate(&b, name, data); err != nil {
		return "", err
	}
	return template.HTML(b.String()), nil
}

// stride returns the indices of an even subset of at most max of n
// points, and every index when n fits.
func stride(n, max int) []int {
	k := n
	if n > max {
		k = max
	}
	idx := make([]int, k)
	for i := range idx {
		idx[i] = i * n / k
	}
	return idx
}

// jitter spreads the runs of one column of a strip plot over ±0.3 of its
// width, the same way every time (the first run in the middle), so that
// equal values stay visible.
func jitter(k int) float64 {
	f := math.Mod(float64(k)*0.6180339887+0.5, 1)
	return 0.6 * (f - 0.5)
}

// finite reports whether every value is finite, as the chart's JSON
// needs.
func finite(xs ...float64) bool {
	for _, x := range xs {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}

// chartID makes the i-th chart's element id.
func chartID(prefix string, i int) string { return fmt.Sprintf("%s-%d", prefix, i) }

// unitText is a unit for an axis, without the unit that repeats the
// metric's name.
func unitText(name, unit string) string {
	if unit == name {
		return ""
	}
	return strings.TrimSpace(unit)
}
