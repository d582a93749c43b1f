package web_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/kdelta/kdelta/internal/browsertest"
	"github.com/kdelta/kdelta/internal/compare"
	"github.com/kdelta/kdelta/internal/report"
	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/store"
	"github.com/kdelta/kdelta/internal/web"
)

func TestMain(m *testing.M) { os.Exit(browsertest.Main(m)) }

// xss is a label value that would run if a page did not escape it.
const xss = `<script>alert(1)</script>`

var day0 = time.Date(2026, 7, 27, 9, 0, 0, 0, time.UTC)

// pipeSet is a stored set of one pipe benchmark whose eight runs spread
// ±2% about centre, a second apart, with a profile whose avc_lookup share
// is avc.
func pipeSet(id string, at time.Time, labels map[string]string, centre, avc float64) *result.Set {
	m := result.Metric{Name: "latency", Unit: "us", Better: result.Lower}
	b := &result.Benchmark{Workload: "pipe", Params: map[string]string{"mode": "thread"}, Metrics: []result.Metric{m}}
	for i := range 8 {
		v := centre * (1 + 0.01*float64(i%5-2))
		b.Runs = append(b.Runs, &result.Run{Index: i, Start: at.Add(time.Duration(i) * time.Second), Status: result.StatusOK, Ops: 1e4,
			VolCtxSw: 20000, InvolCtxSw: int64(10 * i), Values: map[string]float64{m.Name: v}})
	}
	b.Profiles = []result.Profile{{Source: "perf record", Event: "cycles", Samples: 10000, Symbols: []result.ProfileSymbol{
		{Overhead: avc, Symbol: "avc_lookup", Kernel: true, DSO: "[kernel.kallsyms]"},
		{Overhead: 30 - avc/2, Symbol: "do_syscall_64", Kernel: true, DSO: "[kernel.kallsyms]"},
	}}}
	return &result.Set{Schema: result.Schema, ID: id, Created: at, Tool: "kdelta test", Labels: labels, Benchmarks: []*result.Benchmark{b}, Complete: true}
}

// filled is a store with five builds of pipe that step up 20% at 6.16,
// three sets per build, and one more whose note label is markup; it
// returns the store and the sets' ids by kernel.
func filled(t *testing.T) (store.Store, map[string][]string) {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "kdelta.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	ids := map[string][]string{}
	n := 0
	for i, k := range []string{"6.14", "6.15", "6.16", "6.17", "6.18"} {
		centre, avc := 10.0, 15.23
		if i >= 2 {
			centre, avc = 12, 24.79
		}
		for j := range 3 {
			id := fmt.Sprintf("20260727T%02d%02d00-%012d", 9+i, j, n)
			n++
			labels := map[string]string{"kernel": k, "host": "p10"}
			if i == 4 && j == 2 {
				labels["note"] = xss
			}
			if err := st.Save(ctx, pipeSet(id, day0.Add(time.Duration(n)*time.Hour), labels, centre, avc)); err != nil {
				t.Fatal(err)
			}
			ids[k] = append(ids[k], id)
		}
	}
	return st, ids
}

func get(t *testing.T, u string) (int, string) {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestReadOnly sends every method but GET and HEAD to every page and API:
// each is refused with 405, and the store holds what it held.
func TestReadOnly(t *testing.T) {
	st, ids := filled(t)
	srv := httptest.NewServer(web.New(st, web.Options{}))
	defer srv.Close()
	before, _ := st.List(context.Background(), store.Filter{})
	for _, path := range []string{"/", "/set/" + ids["6.15"][0], "/compare?a=" + ids["6.15"][0] + "&b=" + ids["6.16"][0], "/api/sets", "/api/set/" + ids["6.15"][0], "/history?workload=pipe"} {
		for _, m := range []string{http.MethodPost, http.MethodPut, http.MethodDelete, http.MethodPatch, "TAG"} {
			req, _ := http.NewRequest(m, srv.URL+path, strings.NewReader(`{"labels":{"kernel":"x"}}`))
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != "GET, HEAD" {
				t.Errorf("%s %s: %s, Allow %q; want 405", m, path, resp.Status, resp.Header.Get("Allow"))
			}
		}
	}
	after, _ := st.List(context.Background(), store.Filter{})
	if len(after) != len(before) {
		t.Errorf("the store held %d sets, now %d", len(before), len(after))
	}
	for i := range after {
		if after[i].Updated != before[i].Updated {
			t.Errorf("set %s was written", after[i].ID)
		}
	}
}

// TestLimits checks the bounds of a request and the errors of bad ones:
// one line, the right status.
func TestLimits(t *testing.T) {
	st, ids := filled(t)
	srv := httptest.NewServer(web.New(st, web.Options{}))
	defer srv.Close()
	for _, tc := range []struct {
		path string
		code int
		msg  string
	}{
		{"/?q=" + strings.Repeat("x", web.MaxQuery), http.StatusRequestURITooLong, "query longer than"},
		{"/compare?a=" + ids["6.15"][0], http.StatusBadRequest, "compare takes 2 to 8 sets"},
		{"/compare?a=nosuchset&b=" + ids["6.15"][0], http.StatusNotFound, "no stored set is nosuchset"},
		{"/compare?a=2026&b=" + ids["6.15"][0], http.StatusBadRequest, "names 15 stored sets"},
		{"/compare?a=../../../../etc/passwd&b=/etc/passwd", http.StatusNotFound, "no stored set is ../../../../etc/passwd"},
		{"/?label=kernel", http.StatusBadRequest, `label="kernel": give k=v`},
		{"/api/history?workload=", http.StatusBadRequest, "workload="},
		{"/nothing/here", http.StatusNotFound, "no such page"},
		{"/profile?a=" + ids["6.15"][0], http.StatusBadRequest, "profile takes two sets"},
	} {
		code, body := get(t, srv.URL+tc.path)
		if code != tc.code || !strings.Contains(body, tc.msg) || strings.Count(strings.TrimSpace(body), "\n") != 0 {
			t.Errorf("GET %.60s: %d %q; want %d and one line with %q", tc.path, code, body, tc.code, tc.msg)
		}
	}
	// A GET with a body is refused before it is read.
	req, _ := http.NewRequest(http.MethodGet, srv.URL+"/", strings.NewReader("x"))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("GET with a body: %s", resp.Status)
	}
}

// TestLoopbackOnly: an address that is not loopback needs --allow-remote.
func TestLoopbackOnly(t *testing.T) {
	for _, tc := range []struct {
		addr   string
		remote bool
		ok     bool
	}{
		{"127.0.0.1:0", false, true}, {"[::1]:0", false, true}, {"localhost:8080", false, true},
		{"0.0.0.0:8080", false, false}, {":8080", false, false}, {"192.0.2.1:80", false, false}, {"example.org:80", false, false},
		{"0.0.0.0:8080", true, true}, {"nonsense", false, false},
	} {
		if err := web.CheckAddr(tc.addr, tc.remote); (err == nil) != tc.ok {
			t.Errorf("CheckAddr(%q, remote %v) = %v", tc.addr, tc.remote, err)
		}
	}
	ln, err := web.Listen(web.Options{Addr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if who := web.Readers(ln); who != "users of this machine" {
		t.Errorf("readers of %s: %q", ln.Addr(), who)
	}
}

// TestAPI reads the JSON API: label filters and search select sets, a
// query is a parameter and not SQL, and the comparison is the one kdelta
// compare --format json prints.
func TestAPI(t *testing.T) {
	st, ids := filled(t)
	srv := httptest.NewServer(web.New(st, web.Options{}))
	defer srv.Close()
	list := func(q string) []string {
		code, body := get(t, srv.URL+"/api/sets?"+q)
		if code != 200 {
			t.Fatalf("/api/sets?%s: %d %s", q, code, body)
		}
		var sets []struct{ ID string }
		if err := json.Unmarshal([]byte(body), &sets); err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, s := range sets {
			out = append(out, s.ID)
		}
		return out
	}
	if got := list("label=kernel%3D6.16"); strings.Join(got, " ") != strings.Join(ids["6.16"], " ") {
		t.Errorf("kernel=6.16: %v, want %v", got, ids["6.16"])
	}
	if got := list("q=" + url.QueryEscape("alert(1)")); len(got) != 1 || got[0] != ids["6.18"][2] {
		t.Errorf("search alert(1): %v", got)
	}
	if got := list("label=" + url.QueryEscape("kernel=6.16' OR '1'='1")); len(got) != 0 {
		t.Errorf("a label value with SQL in it selected %v", got)
	}
	if got := list(""); len(got) != 15 {
		t.Errorf("all: %d sets", len(got))
	}
	code, body := get(t, srv.URL+"/api/compare?a="+ids["6.15"][0]+"&b="+ids["6.16"][0])
	a, _ := st.Get(context.Background(), ids["6.15"][0])
	b, _ := st.Get(context.Background(), ids["6.16"][0])
	r, err := compare.Compare([]compare.Input{{Name: "kernel=6.15", Set: a}, {Name: "kernel=6.16", Set: b}}, compare.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	if err := report.WriteCompare(&want, r, "json"); err != nil {
		t.Fatal(err)
	}
	if code != 200 || body != want.String() {
		t.Errorf("/api/compare: %d\n%s\nwant\n%s", code, body, want.String())
	}
	code, body = get(t, srv.URL+"/api/history?workload=pipe&by=kernel")
	var hs struct {
		Series []struct {
			Points []struct {
				Label string
				Step  *struct{ Change float64 }
			}
		}
	}
	steps := func() (at []string) {
		for _, p := range hs.Series[0].Points {
			if p.Step != nil {
				at = append(at, p.Label)
			}
		}
		return at
	}
	if err := json.Unmarshal([]byte(body), &hs); code != 200 || err != nil || len(hs.Series) != 1 || len(hs.Series[0].Points) != 5 || strings.Join(steps(), " ") != "6.16" {
		t.Errorf("/api/history: %d %v %.300s", code, err, body)
	}
}

// chart is what the page says of one drawn chart.
type chart struct {
	Kind  string `json:"kind"`
	Marks int    `json:"marks"`
	Runs  int    `json:"runs"`
}

func charts(p *browsertest.Page) []chart {
	return browsertest.Eval[[]chart](p, `window.kdeltaCharts.map(c => ({kind: c.kind, marks: c.marks, runs: c.spec.runs}))`)
}

// checkMarks fails for a run plot whose marks are not its runs, and when
// the page has fewer than want run plots.
func checkMarks(t *testing.T, p *browsertest.Page, want int) {
	t.Helper()
	n := 0
	for _, c := range charts(p) {
		if c.Kind == "cdf" || c.Kind == "hist" {
			continue
		}
		n++
		if c.Marks != c.Runs || c.Runs == 0 {
			t.Errorf("%s plot: %d marks of %d runs", c.Kind, c.Marks, c.Runs)
		}
	}
	if n < want {
		t.Errorf("%d run plots, want %d", n, want)
	}
}

// TestDashboardInChromium walks the dashboard as a person would: the list,
// a filter, a search for markup, a comparison of checked sets and its
// permalink, a set, the history and its step's link, the environment and
// the profile diff; every page loads with no console error, no request
// outside the server, no dialog, and a mark per run.
func TestDashboardInChromium(t *testing.T) {
	st, ids := filled(t)
	srv := httptest.NewServer(web.New(st, web.Options{}))
	defer srv.Close()
	rows := func(p *browsertest.Page) int {
		return browsertest.Eval[int](p, `document.querySelectorAll("tr.set").length`)
	}

	p := browsertest.Open(t, srv.URL+"/")
	p.Screenshot("serve-sets")
	p.CheckClean(srv.URL)
	if n := rows(p); n != 15 {
		t.Errorf("the list shows %d sets, want 15", n)
	}
	if !strings.Contains(browsertest.Eval[string](p, "document.body.innerText"), "note="+xss) {
		t.Errorf("the list does not show the note label as text")
	}

	// A label filter typed into the form.
	p.Type(`form.filters input[name=label]`, "kernel=6.16")
	p.Follow(`form.filters button`)
	if n := rows(p); n != 3 {
		t.Errorf("label kernel=6.16 lists %d sets, want 3", n)
	}
	p.Screenshot("serve-sets-filtered")
	p.CheckClean(srv.URL)

	// Two checked sets compared, then the page's permalink opened anew.
	p = browsertest.Open(t, srv.URL+"/")
	p.Click(`input[value="` + ids["6.15"][0] + `"]`)
	p.Click(`input[value="` + ids["6.16"][0] + `"]`)
	p.Follow(`form:not(.filters) button`)
	p.Screenshot("serve-compare")
	p.CheckClean(srv.URL)
	checkMarks(t, p, 2)
	link := browsertest.Eval[string](p, `Array.from(document.querySelectorAll("nav a")).find(a => a.textContent === "permalink").href`)
	data := browsertest.Eval[string](p, `document.getElementById("kdelta-data").textContent`)
	if !strings.Contains(link, "/compare?a=") {
		t.Fatalf("permalink %q", link)
	}
	again := browsertest.Open(t, link)
	again.CheckClean(srv.URL)
	if d := browsertest.Eval[string](again, `document.getElementById("kdelta-data").textContent`); d != data {
		t.Errorf("the permalink %s draws other data", link)
	}
	if h := browsertest.Eval[string](again, `document.querySelector("h1").textContent`); !strings.Contains(h, "kernel=6.15 vs kernel=6.16") {
		t.Errorf("permalink's title %q", h)
	}

	for _, pg := range []struct {
		name, path string
		plots      int
		text       string
	}{
		{"serve-set", "/set/" + ids["6.18"][2], 1, xss},
		{"serve-compare-xss", "/compare?a=" + ids["6.18"][1] + "&b=" + ids["6.18"][2], 2, xss},
		{"serve-compare-profiles", "/compare?a=" + ids["6.15"][0] + "&b=" + ids["6.16"][0], 2, "avc_lookup"},
		{"serve-history", "/history?workload=pipe&by=note", 1, xss},
		{"serve-env", "/env?a=" + ids["6.15"][0] + "&b=" + ids["6.16"][0], 0, "no differences"},
		{"serve-profile", "/profile?a=" + ids["6.15"][0] + "&b=" + ids["6.16"][0], 0, "avc_lookup"},
		{"serve-history-form", "/history", 0, "stored workloads: pipe"},
	} {
		t.Run(pg.name, func(t *testing.T) {
			p := browsertest.Open(t, srv.URL+pg.path)
			p.Screenshot(pg.name)
			p.CheckClean(srv.URL)
			checkMarks(t, p, pg.plots)
			if !strings.Contains(browsertest.Eval[string](p, "document.body.innerText"), pg.text) {
				t.Errorf("%s does not show %q", pg.path, pg.text)
			}
		})
	}

	// The history's step, clicked, opens the comparison across it.
	h := browsertest.Open(t, srv.URL+"/history?workload=pipe&by=kernel")
	h.Screenshot("serve-history-kernel")
	checkMarks(t, h, 1)
	h.Follow(`ul.steps a`)
	if u := browsertest.Eval[string](h, "location.pathname + location.search"); u != "/compare?a="+ids["6.15"][2]+"&b="+ids["6.16"][0] {
		t.Errorf("the step opened %s", u)
	}
	h.CheckClean(srv.URL)
	checkMarks(t, h, 2)
}

// TestHostHeader: a request whose Host is not a loopback name, as a page
// of another site sends through DNS rebinding, is refused unless the
// server was started with --allow-remote.
func TestHostHeader(t *testing.T) {
	st, _ := filled(t)
	local := httptest.NewServer(web.New(st, web.Options{}))
	defer local.Close()
	remote := httptest.NewServer(web.New(st, web.Options{AllowRemote: true}))
	defer remote.Close()
	port := local.Listener.Addr().(*net.TCPAddr).Port
	for _, tc := range []struct {
		host   string
		remote bool
		code   int
	}{
		{fmt.Sprintf("127.0.0.1:%d", port), false, http.StatusOK},
		{fmt.Sprintf("localhost:%d", port), false, http.StatusOK},
		{fmt.Sprintf("LOCALHOST.:%d", port), false, http.StatusOK},
		{fmt.Sprintf("[::1]:%d", port), false, http.StatusOK},
		{"127.0.0.2", false, http.StatusOK},
		{fmt.Sprintf("rebind.example.org:%d", port), false, http.StatusForbidden},
		{"evil.localhost.example.org", false, http.StatusForbidden},
		{"192.0.2.1", false, http.StatusForbidden},
		{fmt.Sprintf("rebind.example.org:%d", port), true, http.StatusOK},
	} {
		u := local.URL
		if tc.remote {
			u = remote.URL
		}
		req, _ := http.NewRequest(http.MethodGet, u+"/api/sets", nil)
		req.Host = tc.host
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.code {
			t.Errorf("Host %s (allow remote %v): %s %q; want %d", tc.host, tc.remote, resp.Status, b, tc.code)
		}
		if tc.code == http.StatusForbidden && !strings.Contains(string(b), "--allow-remote") {
			t.Errorf("Host %s refused with %q, which does not say --allow-remote", tc.host, b)
		}
	}
}

// TestNoInlineScript: no page's policy lets a script run that is not one
// of the page's own, named by its hash, and the offline report carries
// the same policy.
func TestNoInlineScript(t *testing.T) {
	st, ids := filled(t)
	srv := httptest.NewServer(web.New(st, web.Options{}))
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/compare?a=" + ids["6.15"][0] + "&b=" + ids["6.16"][0])
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	csp := resp.Header.Get("Content-Security-Policy")
	for _, p := range []string{csp, report.CSP} {
		_, src, _ := strings.Cut(p, "script-src ")
		src, _, _ = strings.Cut(src, ";")
		if strings.Contains(src, "unsafe") || !strings.HasPrefix(src, "'sha256-") {
			t.Errorf("policy %q lets inline scripts run", p)
		}
	}
	meta := regexp.MustCompile(`<meta http-equiv="Content-Security-Policy" content="([^"]*)">`).FindStringSubmatch(string(body))
	if meta == nil || html.UnescapeString(meta[1]) != report.CSP {
		t.Errorf("the page does not carry the policy %q in its meta element", report.CSP)
	}
}

// TestCompareBounds: a comparison of more sets than it takes says so
// rather than dropping those after the eighth, and the history API
// answers 404 where its page does.
func TestCompareBounds(t *testing.T) {
	st, ids := filled(t)
	srv := httptest.NewServer(web.New(st, web.Options{}))
	defer srv.Close()
	var all []string
	for _, k := range []string{"6.14", "6.15", "6.16"} {
		all = append(all, ids[k]...)
	}
	v, s := url.Values{}, url.Values{}
	for i, id := range all {
		v.Set(string(rune('a'+i)), id)
		s.Add("s", id)
	}
	for _, tc := range []struct {
		path string
		code int
		msg  string
	}{
		{"/compare?" + v.Encode(), http.StatusBadRequest, "i=: a comparison takes at most 8 sets"},
		{"/api/compare?" + v.Encode(), http.StatusBadRequest, "i=: a comparison takes at most 8 sets"},
		{"/compare?" + s.Encode(), http.StatusBadRequest, "compare takes 2 to 8 sets, 9 given"},
		{"/compare?a=" + all[0] + "&b=" + all[1] + "&s=" + all[2], http.StatusBadRequest, "not both"},
		{"/history?workload=nosuch&by=kernel", http.StatusNotFound, "no stored sets of nosuch"},
		{"/api/history?workload=nosuch&by=kernel", http.StatusNotFound, "no stored sets of nosuch"},
		{"/api/history?workload=pipe&by=nosuchlabel", http.StatusNotFound, "carry label nosuchlabel"},
	} {
		code, body := get(t, srv.URL+tc.path)
		if code != tc.code || !strings.Contains(body, tc.msg) {
			t.Errorf("GET %.80s: %d %q; want %d and %q", tc.path, code, body, tc.code, tc.msg)
		}
	}
	code, _ := get(t, srv.URL+"/compare?a="+all[0]+"&h="+all[7])
	if code != http.StatusOK {
		t.Errorf("a= and h=: %d", code)
	}
}
