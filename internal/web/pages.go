package web

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/kdelta/kdelta/internal/calibrate"
	"github.com/kdelta/kdelta/internal/compare"
	"github.com/kdelta/kdelta/internal/history"
	"github.com/kdelta/kdelta/internal/profile"
	"github.com/kdelta/kdelta/internal/report"
	"github.com/kdelta/kdelta/internal/resolve"
	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/stats"
	"github.com/kdelta/kdelta/internal/store"
)

//go:embed pages.html
var pageFS embed.FS

var pages = template.Must(template.New("pages.html").Funcs(template.FuncMap{
	"labels": func(l map[string]string) string { return result.FormatPairs(l, " ") },
	"when":   func(t time.Time) string { return t.UTC().Format("2006-01-02 15:04") },
	"join":   strings.Join,
}).ParseFS(pageFS, "pages.html"))

// nav is every page's navigation.
var nav = []report.Link{{Text: "result sets", URL: "/"}, {Text: "history", URL: "/history"}}

func (s *Server) routes() {
	for path, h := range map[string]func(http.ResponseWriter, *http.Request) error{
		"/{$}":          s.sets,
		"/set/{id}":     s.set,
		"/compare":      s.compare,
		"/history":      s.history,
		"/env":          s.env,
		"/profile":      s.profile,
		"/api/sets":     s.apiSets,
		"/api/set/{id}": s.apiSet,
		"/api/compare":  s.apiCompare,
		"/api/history":  s.apiHistory,
		"/api/env":      s.apiEnv,
		"/api/profile":  s.apiProfile,
		"/":             func(http.ResponseWriter, *http.Request) error { return notFound("no such page") },
	} {
		s.mux.Handle(path, s.handler(h))
	}
}

// An httpError is a failed request's status and one line saying why.
type httpError struct {
	code int
	msg  string
}

func (e *httpError) Error() string { return e.msg }

func badRequest(format string, args ...any) error {
	return &httpError{http.StatusBadRequest, fmt.Sprintf(format, args...)}
}

func notFound(format string, args ...any) error {
	return &httpError{http.StatusNotFound, fmt.Sprintf(format, args...)}
}

// handler renders into a buffer, so that a failure halfway sends an error
// and not half a page, and serves the answer from the cache while fresh.
func (s *Server) handler(h func(http.ResponseWriter, *http.Request) error) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a := s.cache.get(r.URL.RequestURI(), func() answer { return render(h, r) })
		for k, v := range a.header {
			w.Header()[k] = v
		}
		w.WriteHeader(a.code)
		if r.Method != http.MethodHead {
			w.Write(a.body)
		}
	})
}

// render runs h and returns its answer, or the error's status and line.
func render(h func(http.ResponseWriter, *http.Request) error, r *http.Request) answer {
	bw := &bufferedWriter{header: http.Header{}}
	err := h(bw, r)
	if err == nil {
		return answer{code: http.StatusOK, header: bw.header, body: bw.buf.Bytes()}
	}
	code := http.StatusInternalServerError
	var he *httpError
	switch {
	case r.Context().Err() != nil:
		code = http.StatusServiceUnavailable
	case errors.As(err, &he):
		code = he.code
	case errors.Is(err, store.ErrNotFound):
		code = http.StatusNotFound
	}
	hd := http.Header{"Content-Type": {"text/plain; charset=utf-8"}, "X-Content-Type-Options": {"nosniff"}}
	return answer{code: code, header: hd, body: []byte(oneLine(err.Error()) + "\n")}
}

// oneLine keeps the first line of a message.
func oneLine(s string) string {
	first, _, _ := strings.Cut(s, "\n")
	return first
}

// A bufferedWriter holds a response until it is whole.
type bufferedWriter struct {
	header http.Header
	buf    bytes.Buffer
}

func (b *bufferedWriter) Header() http.Header         { return b.header }
func (b *bufferedWriter) Write(p []byte) (int, error) { return b.buf.Write(p) }
func (b *bufferedWriter) WriteHeader(int)             {}

func htmlType(w http.ResponseWriter) { w.Header().Set("Content-Type", "text/html; charset=utf-8") }
func jsonType(w http.ResponseWriter) { w.Header().Set("Content-Type", "application/json") }

// listView is what the sets page shows.
type listView struct {
	Query, Workload string
	Labels          []string
	Sets            []store.Info
	Matched, Total  int
	Shown           int
	Keys            []string
}

// sets is the list of result sets with label filters and text search.
func (s *Server) sets(w http.ResponseWriter, r *http.Request) error {
	infos, f, err := s.list(r)
	if err != nil {
		return err
	}
	total := len(infos)
	matched := search(infos, r.URL.Query().Get("q"))
	v := listView{Query: r.URL.Query().Get("q"), Workload: f.Workload, Matched: len(matched), Total: total}
	for _, l := range f.Labels {
		v.Labels = append(v.Labels, l.String())
	}
	// Newest first, and at most MaxListed.
	slices.Reverse(matched)
	v.Sets = matched[:min(len(matched), MaxListed)]
	v.Shown = len(v.Sets)
	keys := map[string]bool{}
	for _, in := range v.Sets {
		for k := range in.Labels {
			keys[k] = true
		}
	}
	for k := range keys {
		v.Keys = append(v.Keys, k)
	}
	sort.Strings(v.Keys)
	return s.page(w, "result sets", "sets", v)
}

// page writes the page of title with the named template of pages.html.
func (s *Server) page(w http.ResponseWriter, title, name string, v any) error {
	var b bytes.Buffer
	if err := pages.ExecuteTemplate(&b, name, v); err != nil {
		return err
	}
	htmlType(w)
	return report.WriteHTMLPage(w, title, template.HTML(b.String()), report.HTMLOptions{Nav: nav})
}

// list lists the sets that the request's label= and workload= keep, in
// the store's order (oldest first).
func (s *Server) list(r *http.Request) ([]store.Info, store.Filter, error) {
	q := r.URL.Query()
	f := store.Filter{Workload: q.Get("workload")}
	for _, l := range q["label"] {
		if l == "" {
			continue
		}
		ls, ok := resolve.ParseLabelQuery(l)
		if !ok {
			return nil, f, badRequest("label=%q: give k=v[,k=v...]", l)
		}
		f.Labels = append(f.Labels, ls...)
	}
	infos, err := s.st.List(r.Context(), f)
	return infos, f, err
}

// search keeps the sets whose id, labels, workloads, kernel or tool hold
// every word of q, ignoring case.
func search(infos []store.Info, q string) []store.Info {
	words := strings.Fields(strings.ToLower(q))
	if len(words) == 0 {
		return infos
	}
	var out []store.Info
	for _, in := range infos {
		text := strings.ToLower(in.ID + " " + result.FormatPairs(in.Labels, " ") + " " + strings.Join(in.Workload, " ") + " " + in.Kernel + " " + in.Tool)
		all := true
		for _, w := range words {
			all = all && strings.Contains(text, w)
		}
		if all {
			out = append(out, in)
		}
	}
	return out
}

func (s *Server) apiSets(w http.ResponseWriter, r *http.Request) error {
	infos, _, err := s.list(r)
	if err != nil {
		return err
	}
	jsonType(w)
	return report.WriteInfosJSON(w, search(infos, r.URL.Query().Get("q")))
}

// stored finds the one stored set ref names: its id, the start of its id,
// or a label query. It never reads a file: a reference comes from a URL.
func (s *Server) stored(r *http.Request, ref string) (*result.Set, error) {
	if ref == "" {
		return nil, badRequest("an empty set reference")
	}
	var f store.Filter
	if ls, ok := resolve.ParseLabelQuery(ref); ok {
		f.Labels = ls
	} else {
		f.IDPrefix = ref
	}
	infos, err := s.st.List(r.Context(), f)
	if err != nil {
		return nil, err
	}
	switch {
	case len(infos) == 0:
		return nil, notFound("no stored set is %s", ref)
	case len(infos) > 1 && infos[0].ID != ref:
		// An exact id wins over the sets it is the start of.
		for _, in := range infos {
			if in.ID == ref {
				return s.st.Get(r.Context(), in.ID)
			}
		}
		return nil, badRequest("%s names %d stored sets (%s …): give more of an id", ref, len(infos), infos[0].ID)
	}
	return s.st.Get(r.Context(), infos[0].ID)
}

// side is stored for a side of a comparison: a label query that selects
// several stored sets is all of them, each one session of the side, as
// kdelta compare takes it (resolve.Sessions).
func (s *Server) side(r *http.Request, ref string) (*result.Set, error) {
	ls, ok := resolve.ParseLabelQuery(ref)
	if !ok {
		return s.stored(r, ref)
	}
	infos, err := s.st.List(r.Context(), store.Filter{Labels: ls})
	if err != nil || len(infos) < 2 {
		return s.stored(r, ref)
	}
	sets := make([]*result.Set, len(infos))
	for i, in := range infos {
		if sets[i], err = s.st.Get(r.Context(), in.ID); err != nil {
			return nil, err
		}
	}
	set, err := resolve.Sessions(ref, sets)
	if err != nil {
		return nil, badRequest("%v", err)
	}
	return set, nil
}

func (s *Server) set(w http.ResponseWriter, r *http.Request) error {
	set, err := s.stored(r, r.PathValue("id"))
	if err != nil {
		return err
	}
	htmlType(w)
	return report.WriteShowHTML(w, set, report.HTMLOptions{Nav: append(nav, report.Link{Text: "JSON", URL: "/api/set/" + url.PathEscape(set.ID)})})
}

func (s *Server) apiSet(w http.ResponseWriter, r *http.Request) error {
	set, err := s.stored(r, r.PathValue("id"))
	if err != nil {
		return err
	}
	jsonType(w)
	return report.WriteSetJSON(w, set)
}

// refs are the sets a request names: a=, b=, ... h= in order, or else
// every s= (the list page's check boxes); checked tells it was s=. A
// request that names a set in a way refs would not read (i=, or s= beside
// a=) is refused rather than answered without it.
func refs(r *http.Request) (names []string, checked bool, err error) {
	q := r.URL.Query()
	for k, v := range q {
		if len(k) == 1 && k != "s" && k[0] > 'a'+MaxCompared-1 && k[0] <= 'z' && slices.ContainsFunc(v, func(s string) bool { return s != "" }) {
			return nil, false, badRequest("%s=: a comparison takes at most %d sets, a= to %c=", k, MaxCompared, 'a'+MaxCompared-1)
		}
	}
	for c := 'a'; c < 'a'+MaxCompared; c++ {
		if v := q.Get(string(c)); v != "" {
			names = append(names, v)
		}
	}
	var checks []string
	for _, v := range q["s"] {
		if v != "" {
			checks = append(checks, v)
		}
	}
	switch {
	case len(names) > 0 && len(checks) > 0:
		return nil, false, badRequest("give the sets either as a=, b=, ... or as s=, not both")
	case len(names) > 0:
		return names, false, nil
	}
	return checks, true, nil
}

// comparison loads and compares the sets the request names.
func (s *Server) comparison(r *http.Request) (*compare.Result, error) {
	names, checked, err := refs(r)
	if err != nil {
		return nil, err
	}
	if len(names) < 2 || len(names) > MaxCompared {
		return nil, badRequest("compare takes 2 to %d sets, %d given: /compare?a=ID&b=ID", MaxCompared, len(names))
	}
	sets := make([]*result.Set, len(names))
	for i, n := range names {
		set, err := s.side(r, n)
		if err != nil {
			return nil, err
		}
		sets[i] = set
	}
	if checked {
		// Sets checked in the list: the oldest is the baseline.
		sort.SliceStable(sets, func(i, j int) bool { return sets[i].Created.Before(sets[j].Created) })
	}
	ids := make([]string, len(sets))
	for i, set := range sets {
		ids[i] = set.ID
	}
	labels := compare.Names(sets, ids)
	ins := make([]compare.Input, len(sets))
	for i := range sets {
		ins[i] = compare.Input{Name: labels[i], Set: sets[i]}
	}
	opt, err := statsOptions(r)
	if err != nil {
		return nil, err
	}
	return compare.Compare(ins, compare.Options{Stats: opt, Noise: calibrate.Lookup(r.Context(), s.st)})
}

// statsOptions reads alpha= and threshold=, kdelta compare's defaults
// when absent.
func statsOptions(r *http.Request) (stats.Options, error) {
	q := r.URL.Query()
	opt := stats.Options{Alpha: 0.05, Threshold: 0.01}
	if a := q.Get("alpha"); a != "" {
		if _, err := fmt.Sscanf(a, "%g", &opt.Alpha); err != nil {
			return opt, badRequest("alpha=%q: not a number", a)
		}
	}
	if t := q.Get("threshold"); t != "" {
		thr, err := stats.ParsePercent(t)
		if err != nil {
			return opt, badRequest("threshold=%q: %v", t, err)
		}
		opt.Threshold = thr
	}
	if err := opt.Validate(); err != nil {
		return opt, badRequest("%v", err)
	}
	return opt, nil
}

func (s *Server) compare(w http.ResponseWriter, r *http.Request) error {
	c, err := s.comparison(r)
	if err != nil {
		return err
	}
	htmlType(w)
	return report.WriteCompareHTML(w, c, report.HTMLOptions{Nav: append(nav, report.Link{Text: "permalink", URL: permalink("/compare", c)})})
}

// permalink is the address of a comparison by its sets' full ids.
func permalink(path string, c *compare.Result) string {
	v := url.Values{}
	for i, in := range c.Inputs {
		v.Set(string(rune('a'+i)), in.Set.ID)
	}
	return path + "?" + v.Encode()
}

func (s *Server) apiCompare(w http.ResponseWriter, r *http.Request) error {
	c, err := s.comparison(r)
	if err != nil {
		return err
	}
	jsonType(w)
	return report.WriteCompare(w, c, "json")
}

// historyQuery reads by=, workload=, metric= and label= as kdelta history
// reads its flags.
func historyQuery(r *http.Request) (history.Query, error) {
	q := r.URL.Query()
	hq := history.Query{By: q.Get("by"), Metric: q.Get("metric")}
	if hq.By == "" {
		hq.By = "kernel"
	}
	var err error
	if hq.Workload, hq.Params, err = history.ParseWorkloadRef(q.Get("workload")); err != nil {
		return hq, badRequest("workload=: %v", err)
	}
	for _, l := range q["label"] {
		ls, ok := resolve.ParseLabelQuery(l)
		if !ok {
			return hq, badRequest("label=%q: give k=v", l)
		}
		hq.Labels = append(hq.Labels, ls...)
	}
	return hq, nil
}

// historyForm is the history page's form and the workloads to pick from.
type historyForm struct {
	By, Workload, Metric string
	Labels               []string
	Workloads            []string
}

func (s *Server) history(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	form := historyForm{By: q.Get("by"), Workload: q.Get("workload"), Metric: q.Get("metric"), Labels: q["label"]}
	if form.Workload == "" {
		infos, err := s.st.List(r.Context(), store.Filter{})
		if err != nil {
			return err
		}
		seen := map[string]bool{}
		for _, in := range infos {
			for _, wl := range in.Workload {
				if !seen[wl] {
					seen[wl] = true
					form.Workloads = append(form.Workloads, wl)
				}
			}
		}
		sort.Strings(form.Workloads)
		return s.page(w, "history", "history", form)
	}
	hq, err := historyQuery(r)
	if err != nil {
		return err
	}
	hs, err := history.Load(r.Context(), s.st, hq)
	if err != nil {
		return badRequest("%v", err)
	}
	if len(hs) == 0 {
		return notFound("no stored sets of %s carry label %s", hq.Workload, hq.By)
	}
	htmlType(w)
	return report.WriteHistoryHTML(w, hs, hq.ChangePoints, report.HTMLOptions{Nav: nav, CompareURL: compareURL})
}

// compareURL links a step of a history to the comparison of the newest
// set of the build before it with the oldest of the build after it.
func compareURL(a, b []string) string {
	if len(a) == 0 || len(b) == 0 {
		return ""
	}
	v := url.Values{"a": {a[len(a)-1]}, "b": {b[0]}}
	return "/compare?" + v.Encode()
}

func (s *Server) apiHistory(w http.ResponseWriter, r *http.Request) error {
	hq, err := historyQuery(r)
	if err != nil {
		return err
	}
	if hq.Workload == "" {
		return badRequest("workload=: name one")
	}
	hs, err := history.Load(r.Context(), s.st, hq)
	if err != nil {
		return badRequest("%v", err)
	}
	if len(hs) == 0 {
		return notFound("no stored sets of %s carry label %s", hq.Workload, hq.By)
	}
	jsonType(w)
	return report.WriteHistory(w, hs, hq.ChangePoints, "json")
}

// envView is the environment diff page.
type envView struct {
	A, B  string
	Diffs []string
}

// envDiff loads a= and b= and diffs their environments.
func (s *Server) envDiff(r *http.Request) (envView, error) {
	names, _, err := refs(r)
	if err != nil {
		return envView{}, err
	}
	if len(names) != 2 {
		return envView{}, badRequest("env takes two sets: /env?a=ID&b=ID")
	}
	a, err := s.stored(r, names[0])
	if err != nil {
		return envView{}, err
	}
	b, err := s.stored(r, names[1])
	if err != nil {
		return envView{}, err
	}
	return envView{A: a.ID, B: b.ID, Diffs: compare.EnvDiff(a.Env, b.Env)}, nil
}

func (s *Server) env(w http.ResponseWriter, r *http.Request) error {
	v, err := s.envDiff(r)
	if err != nil {
		return err
	}
	return s.page(w, "environment "+v.B+" vs "+v.A, "env", v)
}

func (s *Server) apiEnv(w http.ResponseWriter, r *http.Request) error {
	v, err := s.envDiff(r)
	if err != nil {
		return err
	}
	jsonType(w)
	return writeJSON(w, map[string]any{"a": v.A, "b": v.B, "differences": nonNil(v.Diffs)})
}

// profileDiffs diffs the profiles of a= and b=, benchmark by benchmark.
func (s *Server) profileDiffs(r *http.Request) ([]*profile.Diff, error) {
	names, _, err := refs(r)
	if err != nil {
		return nil, err
	}
	if len(names) != 2 {
		return nil, badRequest("profile takes two sets: /profile?a=ID&b=ID")
	}
	var groups [2][]profile.Group
	for i, n := range names {
		set, err := s.stored(r, n)
		if err != nil {
			return nil, err
		}
		if groups[i], err = profile.FromSet(set.ID, set); err != nil {
			return nil, notFound("%v", err)
		}
	}
	by := r.URL.Query().Get("by")
	ds, err := profile.Match(names[0], names[1], groups[0], groups[1], by)
	if err != nil {
		return nil, badRequest("%v", err)
	}
	return ds, nil
}

func (s *Server) profile(w http.ResponseWriter, r *http.Request) error {
	ds, err := s.profileDiffs(r)
	if err != nil {
		return err
	}
	htmlType(w)
	return report.WriteProfileDiffHTML(w, ds, 50, report.HTMLOptions{Nav: nav})
}

func (s *Server) apiProfile(w http.ResponseWriter, r *http.Request) error {
	ds, err := s.profileDiffs(r)
	if err != nil {
		return err
	}
	jsonType(w)
	return report.WriteProfileDiffs(w, ds, "json", 0)
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
