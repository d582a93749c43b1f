package report_test

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kdelta/kdelta/internal/browsertest"
	"github.com/kdelta/kdelta/internal/compare"
	"github.com/kdelta/kdelta/internal/history"
	"github.com/kdelta/kdelta/internal/profile"
	"github.com/kdelta/kdelta/internal/report"
	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/stats"
)

func TestMain(m *testing.M) { os.Exit(browsertest.Main(m)) }

// drawn is what the page says of each chart it drew: its marks counted
// from the uPlot object's data, the runs the data has, and the heading of
// the metric it plots.
type drawn struct {
	ID     string `json:"id"`
	Kind   string `json:"kind"`
	Marks  int    `json:"marks"`
	Runs   int    `json:"runs"`
	Metric string `json:"metric"`
}

const drawnJS = `window.kdeltaCharts.map(c => {
	const row = document.getElementById(c.id).closest(".row, .series");
	const h = row ? row.querySelector("h2, h3") : null;
	let marks = 0;
	c.spec.series.forEach((s, i) => { if (s.role !== "line") c.plot.data[i + 1].forEach(y => { if (y !== null && y !== undefined) marks++; }); });
	return {id: c.id, kind: c.kind, marks: marks, runs: c.spec.runs, metric: h ? h.firstChild.textContent.trim() : ""};
})`

// writeFile writes a report with write into the test's directory and
// returns its file URL.
func writeFile(t *testing.T, name string, write func(*bytes.Buffer) error) string {
	t.Helper()
	var b bytes.Buffer
	if err := write(&b); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return "file://" + path
}

func importSeed(t *testing.T, name string) *result.Set {
	t.Helper()
	path := filepath.Join("..", "result", "testdata", "import", name)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s, err := result.Import(path, data, "")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestCompareHTMLSeed002 opens the comparison of seed mail 002's tables:
// the page loads cleanly and offline, every run plot draws one mark per
// run, and the baseline's runs 5 and 8 — the outliers the warning names —
// are plotted as outliers far from the other eight.
func TestCompareHTMLSeed002(t *testing.T) {
	a, b := importSeed(t, "seed-002-baseline.md"), importSeed(t, "seed-002-with-fix.md")
	r, err := compare.Compare([]compare.Input{{Name: "baseline", Set: a}, {Name: "with fix", Set: b}}, compare.Options{})
	if err != nil {
		t.Fatal(err)
	}
	u := writeFile(t, "seed-002.html", func(w *bytes.Buffer) error { return report.WriteCompare(w, r, report.HTMLFormat) })
	p := browsertest.Open(t, u)
	p.Screenshot("report-compare-seed-002")
	p.CheckClean(u)

	// Marks: each metric's strip and run-order plots hold every run.
	want := map[string]int{}
	for _, row := range r.Rows {
		for _, s := range row.Sides {
			want[row.Metric.Name+" ("+row.Metric.Unit+")"] += len(s.Values)
		}
	}
	charts := browsertest.Eval[[]drawn](p, drawnJS)
	kinds := map[string]int{}
	for _, c := range charts {
		kinds[c.Kind]++
		if c.Kind != "strip" && c.Kind != "order" {
			continue
		}
		if n, ok := want[c.Metric]; !ok || c.Marks != n || c.Runs != n {
			t.Errorf("chart %s (%s of %q): %d marks of %d runs, want %d (metrics %v)", c.ID, c.Kind, c.Metric, c.Marks, c.Runs, n, want)
		}
	}
	if kinds["strip"] != len(r.Rows) || kinds["order"] != len(r.Rows) {
		t.Errorf("charts %v, want a strip and a run-order plot for each of %d rows", kinds, len(r.Rows))
	}

	// The baseline's strip plot of the mean: the plotted outliers, read
	// back with their pixel heights, against the runs the warning names.
	type point struct {
		Run     int     `json:"run"`
		Value   float64 `json:"value"`
		Px      float64 `json:"px"`
		Outlier bool    `json:"outlier"`
	}
	type readBack struct {
		Points   []point  `json:"points"`
		Warnings []string `json:"warnings"`
	}
	got := browsertest.Eval[readBack](p, `(() => {
		const c = window.kdeltaCharts.find(c => c.kind === "strip" && document.getElementById(c.id).closest(".row").querySelector("h3").textContent.startsWith("mean"));
		const pts = [];
		c.spec.series.forEach((s, i) => {
			if (s.set !== 0 || s.role === "line") return;
			c.plot.data[i + 1].forEach((y, row) => {
				if (y !== null) pts.push({run: c.runs[i + 1][row], value: y, px: c.plot.valToPos(y, "y"), outlier: s.role === "outliers"});
			});
		});
		const row = document.getElementById(c.id).closest(".row");
		return {points: pts, warnings: Array.from(row.querySelectorAll(".warning")).map(e => e.textContent)};
	})()`)
	var named []int
	for _, w := range got.Warnings {
		if strings.HasPrefix(w, "warning: A:") && strings.Contains(w, "outliers") {
			for _, m := range regexp.MustCompile(`run (\d+) \(`).FindAllStringSubmatch(w, -1) {
				n, _ := strconv.Atoi(m[1])
				named = append(named, n)
			}
		}
	}
	var plotted []int
	var outPx, restPx []float64
	for _, pt := range got.Points {
		if a.Benchmarks[0].Values("mean")[pt.Run-1] != pt.Value {
			t.Errorf("run %d plotted at %v, its value is %v", pt.Run, pt.Value, a.Benchmarks[0].Values("mean")[pt.Run-1])
		}
		if pt.Outlier {
			plotted = append(plotted, pt.Run)
			outPx = append(outPx, pt.Px)
		} else {
			restPx = append(restPx, pt.Px)
		}
	}
	slices.Sort(plotted)
	if len(got.Points) != 10 || !slices.Equal(plotted, named) || !slices.Equal(plotted, []int{5, 8}) {
		t.Fatalf("baseline: %d points, outliers plotted %v, named by the warning %v (%q); want runs 5 and 8", len(got.Points), plotted, named, got.Warnings)
	}
	// Apart: each outlier is further from the nearest other run than the
	// other eight are spread, and by at least 20 pixels.
	lo, hi := slices.Min(restPx), slices.Max(restPx)
	for i, px := range outPx {
		gap := math.Min(math.Abs(px-lo), math.Abs(px-hi))
		if gap < 20 || gap < hi-lo || (px > lo && px < hi) {
			t.Errorf("outlier run %d at %.0f px, the other runs %.0f–%.0f px: not apart", plotted[i], px, lo, hi)
		}
	}
}

// xss is a label value that would run if a page did not escape it.
const xss = `<script>alert(1)</script>`

// labelled is a set of one pipe benchmark with values, the runs a second
// apart, labelled with labels.
func labelled(id string, labels map[string]string, values ...float64) *result.Set {
	t0 := time.Date(2026, 7, 27, 9, 0, 0, 0, time.UTC)
	m := result.Metric{Name: "latency", Unit: "us", Better: result.Lower}
	b := &result.Benchmark{Workload: "pipe", Params: map[string]string{"mode": "thread"}, Metrics: []result.Metric{m}}
	for i, v := range values {
		run := &result.Run{Index: i, Start: t0.Add(time.Duration(i) * time.Second), Status: result.StatusOK, Ops: 1000,
			VolCtxSw: int64(2000 + i), InvolCtxSw: int64(i), Values: map[string]float64{m.Name: v},
			Latency: &result.Latency{Unit: "us", Count: 4, Mean: v * 10.875, Min: v * 0.5, Max: v * 40, Raw: []float64{v * 0.5, v, v * 2, v * 40}}}
		b.Runs = append(b.Runs, run)
	}
	return &result.Set{Schema: result.Schema, ID: id, Created: t0, Tool: "kdelta test", Labels: labels, Benchmarks: []*result.Benchmark{b}, Complete: true}
}

// TestHTMLEscapesLabels opens the compare, show and history pages of sets
// whose labels are markup: Chromium sees no dialog and no request, and
// the label reads as text.
func TestHTMLEscapesLabels(t *testing.T) {
	a := labelled("a", map[string]string{"kernel": "6.15", "note": xss}, 10, 10.2, 9.9, 10.1, 10, 10.3)
	b := labelled("b", map[string]string{"kernel": "6.16", "note": `<img src=x onerror=alert(2)>`}, 12, 12.1, 11.8, 12.2, 12, 12.4)
	r, err := compare.Compare([]compare.Input{{Name: compare.Names([]*result.Set{a, b}, []string{"a", "b"})[0], Set: a},
		{Name: compare.Names([]*result.Set{a, b}, []string{"a", "b"})[1], Set: b}}, compare.Options{})
	if err != nil {
		t.Fatal(err)
	}
	hs, err := history.FromSets([]*result.Set{a, b}, history.Query{By: "note", Workload: "pipe"})
	if err != nil {
		t.Fatal(err)
	}
	pages := []struct {
		name  string
		write func(w *bytes.Buffer) error
		text  string
	}{
		{"compare", func(w *bytes.Buffer) error { return report.WriteCompareHTML(w, r, report.HTMLOptions{}) }, xss},
		{"show", func(w *bytes.Buffer) error { return report.WriteShowHTML(w, a, report.HTMLOptions{}) }, xss},
		{"history", func(w *bytes.Buffer) error {
			return report.WriteHistoryHTML(w, hs, stats.ChangePointOptions{}, report.HTMLOptions{})
		}, xss},
	}
	for _, pg := range pages {
		t.Run(pg.name, func(t *testing.T) {
			u := writeFile(t, pg.name+".html", pg.write)
			p := browsertest.Open(t, u)
			p.Screenshot("report-xss-" + pg.name)
			p.CheckClean(u)
			if text := browsertest.Eval[string](p, "document.body.innerText"); !strings.Contains(text, pg.text) {
				t.Errorf("the page does not show %q as text", pg.text)
			}
			if n := browsertest.Eval[int](p, "document.querySelectorAll('body script').length"); n != 3 {
				t.Errorf("%d script elements in the body, want the page's own 3", n)
			}
			for _, c := range browsertest.Eval[[]drawn](p, drawnJS) {
				if c.Kind != "cdf" && c.Kind != "hist" && c.Marks != c.Runs {
					t.Errorf("chart %s (%s): %d marks of %d runs", c.ID, c.Kind, c.Marks, c.Runs)
				}
			}
		})
	}
}

// TestHistoryHTMLSteps opens a history of five builds whose runs step up
// 20% at the third: one step drawn where the change point is, its link to
// the comparison of the builds on its sides, and a mark per run.
func TestHistoryHTMLSteps(t *testing.T) {
	var sets []*result.Set
	for i, k := range []string{"6.14", "6.15", "6.16", "6.17", "6.18"} {
		centre := 10.0
		if i >= 2 {
			centre = 12
		}
		vals := make([]float64, 8)
		for j := range vals {
			vals[j] = centre * (1 + 0.01*float64(j%5-2))
		}
		sets = append(sets, labelled(fmt.Sprintf("set-%d", i), map[string]string{"kernel": k}, vals...))
	}
	hs, err := history.FromSets(sets, history.Query{By: "kernel", Workload: "pipe"})
	if err != nil {
		t.Fatal(err)
	}
	if len(hs) != 1 || len(hs[0].Steps) != 1 {
		t.Fatalf("series %d, steps %v: want one step", len(hs), hs[0].Steps)
	}
	link := func(a, b []string) string { return "/compare?a=" + strings.Join(a, ",") + "&b=" + strings.Join(b, ",") }
	u := writeFile(t, "history.html", func(w *bytes.Buffer) error {
		return report.WriteHistoryHTML(w, hs, stats.ChangePointOptions{}, report.HTMLOptions{CompareURL: link})
	})
	p := browsertest.Open(t, u)
	p.Screenshot("report-history-step")
	p.CheckClean(u)
	charts := browsertest.Eval[[]drawn](p, drawnJS)
	if len(charts) != 1 || charts[0].Marks != 40 || charts[0].Runs != 40 {
		t.Errorf("charts %+v: want one history plot of 40 marks", charts)
	}
	steps := browsertest.Eval[[]struct {
		X    float64 `json:"x"`
		Link string  `json:"link"`
	}](p, `window.kdeltaCharts[0].spec.steps`)
	cp := hs[0].Steps[0]
	if len(steps) != 1 || steps[0].X != float64(cp.Index)-0.5 || steps[0].Link != "/compare?a=set-1&b=set-2" {
		t.Errorf("steps %+v; the change point is at build %d (%s)", steps, cp.Index, cp.Label)
	}
	if href := browsertest.Eval[string](p, `document.querySelector("ul.steps a").getAttribute("href")`); href != steps[0].Link {
		t.Errorf("the step's link %q, want %q", href, steps[0].Link)
	}
}

// TestProfileDiffHTML opens a profile diff: a bar per symbol, growing
// right for a gain of share and left for a loss.
func TestProfileDiffHTML(t *testing.T) {
	d := &profile.Diff{Name: "kill", By: "share",
		A: profile.Summary{Name: "6.15", N: 1, Samples: 1000}, B: profile.Summary{Name: "6.16", N: 1, Samples: 1200},
		Rows: []profile.Row{
			{Symbol: "avc_lookup", Kernel: true, A: profile.Stat{Listed: 1, N: 1, Share: 15.23, Min: 15.23, Max: 15.23},
				B: profile.Stat{Listed: 1, N: 1, Share: 24.79, Min: 24.79, Max: 24.79}, Delta: 9.56, DeltaLo: 9.56, DeltaHi: 9.56, SamplesChange: math.NaN(), PerOpChange: math.NaN()},
			{Symbol: "do_syscall_64", Kernel: true, A: profile.Stat{Listed: 1, N: 1, Share: 10, Min: 10, Max: 10},
				B: profile.Stat{Listed: 1, N: 1, Share: 5, Min: 5, Max: 5}, Delta: -5, DeltaLo: -5, DeltaHi: -5, SamplesChange: math.NaN(), PerOpChange: math.NaN()},
		}}
	u := writeFile(t, "profile.html", func(w *bytes.Buffer) error {
		return report.WriteProfileDiffHTML(w, []*profile.Diff{d}, 0, report.HTMLOptions{})
	})
	p := browsertest.Open(t, u)
	p.Screenshot("report-profile-diff")
	p.CheckClean(u)
	bars := browsertest.Eval[[][2]float64](p, `Array.from(document.querySelectorAll("td.bar")).map(td => [td.querySelector(".neg i").getBoundingClientRect().width, td.querySelector(".pos i").getBoundingClientRect().width])`)
	if len(bars) != 2 || !(bars[0][0] == 0 && bars[0][1] > 100) || !(bars[1][1] == 0 && bars[1][0] > 50 && bars[1][0] < bars[0][1]) {
		t.Errorf("bars (left, right px) %v: want avc_lookup growing right the full half, do_syscall_64 left about half as far", bars)
	}
}

// TestHistoryHTMLSeed000 opens the history of seed mail 000's ELN builds
// (imported, one figure per build): a mark per build in version order, and
// the 6.16 build's change from 6.15-rc6 shown as the mail's −32%.
func TestHistoryHTMLSeed000(t *testing.T) {
	path := filepath.Join("..", "result", "testdata", "import", "seed-000-kernels.txt")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sets, err := result.ImportSets(path, data, "")
	if err != nil {
		t.Fatal(err)
	}
	hs, err := history.FromSets(sets, history.Query{By: result.VariantParam, Workload: "table"})
	if err != nil || len(hs) != 1 {
		t.Fatalf("series %v, %v", hs, err)
	}
	u := writeFile(t, "seed-000.html", func(w *bytes.Buffer) error {
		return report.WriteHistoryHTML(w, hs, stats.ChangePointOptions{}, report.HTMLOptions{})
	})
	p := browsertest.Open(t, u)
	p.Screenshot("report-history-seed-000")
	p.CheckClean(u)
	charts := browsertest.Eval[[]drawn](p, drawnJS)
	if len(charts) != 1 || charts[0].Marks != 3 || charts[0].Runs != 3 {
		t.Errorf("charts %+v: want one plot of the 3 builds", charts)
	}
	names := browsertest.Eval[[]string](p, `window.kdeltaCharts[0].spec.xnames`)
	rows := browsertest.Eval[[][]string](p, `Array.from(document.querySelectorAll("table.points tr")).slice(1).map(tr => Array.from(tr.cells).map(td => td.textContent.trim()))`)
	if strings.Join(names, " ") != "6.15-rc6-eln148 6.16-eln150 6.18-eln154" || len(rows) != 3 || rows[1][0] != "6.16-eln150" || rows[1][3] != report.Pct(70281.0/103207-1) {
		t.Errorf("builds %q, rows %q: want 6.16-eln150 at %s", names, rows, report.Pct(70281.0/103207-1))
	}
	// One figure a build: the step at 6.16 is drawn by its size alone,
	// untested, and the 3% after it is none.
	steps := browsertest.Eval[[]struct {
		X float64 `json:"x"`
	}](p, `window.kdeltaCharts[0].spec.steps`)
	if len(steps) != 1 || steps[0].X != 0.5 || len(hs[0].Steps) != 1 || !hs[0].Steps[0].Figures {
		t.Errorf("steps drawn %+v, found %+v: want one, untested, between 6.15-rc6 and 6.16", steps, hs[0].Steps)
	}
}
