// Package resolve turns the references a user gives on the command line
// into result sets: a file (a kdelta result set, or anything result.Import
// reads), the id of a set in the store or the start of one, or a label
// query k=v[,k=v...] that selects one stored set. Its errors name what
// there is to choose from, so a reference that matches nothing or too much
// is one line away from one that works.
package resolve

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/kdelta/kdelta/internal/calibrate"
	"github.com/kdelta/kdelta/internal/history"
	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/stats"
	"github.com/kdelta/kdelta/internal/store"
)

// A Resolver turns references on the command line into result sets: a
// file (a kdelta result set, or anything kdelta import reads), the id of a
// set in the store or the start of one, or a label query k=v[,k=v...]
// that selects one set in the store.
type Resolver struct {
	ctx      context.Context
	loc      string // the store's location; "" for the default
	st       store.Store
	writable bool
}

// New returns a Resolver over the store at loc (a path, a postgres://
// URL, or "" for store.DefaultPath). The store is opened on first use,
// read-only (store.OpenReadOnly): finding sets writes nothing.
func New(ctx context.Context, loc string) *Resolver {
	return &Resolver{ctx: ctx, loc: loc}
}

// NewWriter is New for a command that changes the sets it finds
// (results tag, results rm): the store is opened to be written.
func NewWriter(ctx context.Context, loc string) *Resolver {
	return &Resolver{ctx: ctx, loc: loc, writable: true}
}

// Close closes the store if it was opened.
func (r *Resolver) Close() {
	if r.st != nil {
		r.st.Close()
	}
}

// Store opens the store on first use and returns it. A store that does
// not exist yet is not created just to be searched.
func (r *Resolver) Store() (store.Store, error) {
	if r.st != nil {
		return r.st, nil
	}
	if err := store.CheckLocation(r.loc); err != nil {
		return nil, err
	}
	if !store.IsPostgres(r.loc) {
		p := r.loc
		if p == "" {
			var err error
			if p, err = store.DefaultPath(); err != nil {
				return nil, err
			}
		}
		if _, err := os.Stat(p); err != nil {
			return nil, fmt.Errorf("no store at %s yet: kdelta run, stat and import record there", p)
		}
	}
	open := store.OpenReadOnly
	if r.writable {
		open = store.Open
	}
	st, err := open(r.ctx, r.loc)
	if err != nil {
		return nil, err
	}
	r.st = st
	return st, nil
}

// Noise is the host's session noise of metric of benchmark b in set as
// kdelta calibrate recorded it in the store (calibrate.Lookup), for
// compare.Options.Noise; unknown when there is no store yet or the set
// names no host (an import): such sets are judged on the prior.
func (r *Resolver) Noise(set *result.Set, b *result.Benchmark, metric string) stats.SessionNoise {
	st, err := r.Store()
	if err != nil {
		return stats.SessionNoise{}
	}
	return calibrate.Lookup(r.ctx, st)(set, b, metric)
}

// Noises returns the session noises recorded for set's benchmarks, or for
// every benchmark of host when set is nil; none when there is no store.
func (r *Resolver) Noises(set *result.Set, host string) ([]store.Noise, error) {
	st, err := r.Store()
	if err != nil {
		return nil, nil
	}
	if set != nil {
		return calibrate.ForSet(r.ctx, st, set)
	}
	return st.Noises(r.ctx, host)
}

// Set returns the one result set ref names.
func (r *Resolver) Set(ref string) (*result.Set, error) {
	if fi, err := os.Stat(ref); err == nil && !fi.IsDir() {
		return LoadFile(r.ctx, ref)
	} else if err == nil {
		return nil, fmt.Errorf("%s is a directory, not a result set file", ref)
	}
	if labels, ok := ParseLabelQuery(ref); ok {
		return r.query(ref, labels)
	}
	if !looksLikeID(ref) {
		// A path: say what the file system says.
		return LoadFile(r.ctx, ref)
	}
	info, err := r.info(ref)
	if err != nil {
		return nil, err
	}
	return r.st.Get(r.ctx, info.ID)
}

// Sets returns the result sets refs name, one each, in order.
func (r *Resolver) Sets(refs []string) ([]*result.Set, error) {
	var sets []*result.Set
	for _, ref := range refs {
		s, err := r.Set(ref)
		if err != nil {
			return nil, err
		}
		sets = append(sets, s)
	}
	return sets, nil
}

// Saved is Set for commands that show a set as kdelta saved it (kdelta
// show): a file must be a kdelta result set, not a file to import.
func (r *Resolver) Saved(ref string) (*result.Set, error) {
	if fi, err := os.Stat(ref); err == nil && !fi.IsDir() {
		return result.LoadContext(r.ctx, ref)
	}
	return r.Set(ref)
}

// info finds the stored set whose id is ref or starts with ref.
func (r *Resolver) info(ref string) (store.Info, error) {
	st, err := r.Store()
	if err != nil {
		return store.Info{}, fmt.Errorf("%s: no such file, and %w", ref, err)
	}
	infos, err := st.List(r.ctx, store.Filter{IDPrefix: ref})
	if err != nil {
		return store.Info{}, err
	}
	for _, in := range infos {
		if in.ID == ref {
			return in, nil
		}
	}
	switch len(infos) {
	case 0:
		return store.Info{}, fmt.Errorf("%s: no such file, and no result set in %s has an id starting so (kdelta results ls lists them)", ref, st.Location())
	case 1:
		return infos[0], nil
	}
	return store.Info{}, fmt.Errorf("%s: the start of %d result set ids in %s: %s", ref, len(infos), st.Location(), Candidates(infos))
}

// Opened is the store a lookup opened, nil before one did.
func (r *Resolver) Opened() store.Store { return r.st }

// StoredID returns the id of the stored set ref names: an id, the start
// of one, or a label query matching one set.
func (r *Resolver) StoredID(ref string) (string, error) {
	if labels, ok := ParseLabelQuery(ref); ok {
		in, err := r.queryInfo(ref, labels)
		return in.ID, err
	}
	in, err := r.info(ref)
	return in.ID, err
}

// StoredInfos describes the stored sets that refs name, one each, in
// order: every ref is resolved before the caller acts on any (results rm
// removes nothing when the third name is a typo).
func (r *Resolver) StoredInfos(refs []string) ([]store.Info, error) {
	var infos []store.Info
	for _, ref := range refs {
		id, err := r.StoredID(ref)
		if err != nil {
			return nil, err
		}
		info, err := store.Lookup(r.ctx, r.st, id)
		if err != nil {
			return nil, err
		}
		infos = append(infos, info)
	}
	return infos, nil
}

// query returns the one stored set that carries every label.
func (r *Resolver) query(ref string, labels []store.Label) (*result.Set, error) {
	in, err := r.queryInfo(ref, labels)
	if err != nil {
		return nil, err
	}
	return r.st.Get(r.ctx, in.ID)
}

func (r *Resolver) queryInfo(ref string, labels []store.Label) (store.Info, error) {
	st, err := r.Store()
	if err != nil {
		return store.Info{}, fmt.Errorf("%s: %w", ref, err)
	}
	infos, err := st.List(r.ctx, store.Filter{Labels: labels})
	if err != nil {
		return store.Info{}, err
	}
	switch len(infos) {
	case 0:
		return store.Info{}, noneCarries(r.ctx, st, ref, labels)
	case 1:
		return infos[0], nil
	}
	return store.Info{}, fmt.Errorf("%s: %d result sets in %s match, name one (an id, or more labels): %s", ref, len(infos), st.Location(), Candidates(infos))
}

// noneCarries is the error of a label query, ref, that no stored set
// matches, with what the sets do carry.
func noneCarries(ctx context.Context, st store.Store, ref string, labels []store.Label) error {
	all, err := st.List(ctx, store.Filter{})
	if err != nil {
		return err
	}
	return fmt.Errorf("%s: no result set in %s carries these labels%s", ref, st.Location(), storedValues(all, labels))
}

// storedValues lists, for each label the query names, the values the
// stored sets carry (kernel-version order, at most ten), or the labels
// they carry when none has it, as the candidates of a query that matched
// nothing.
func storedValues(infos []store.Info, labels []store.Label) string {
	const most = 10
	var b strings.Builder
	for _, l := range labels {
		seen := map[string]bool{}
		var vals []string
		for _, in := range infos {
			if v, ok := in.Labels[l.Name]; ok && !seen[v] {
				seen[v] = true
				vals = append(vals, v)
			}
		}
		if len(vals) == 0 {
			fmt.Fprintf(&b, "; no stored set has the label %s (%s)", l.Name, storedLabels(infos))
			continue
		}
		sort.Slice(vals, func(i, j int) bool { return history.CompareKernelVersions(vals[i], vals[j]) < 0 })
		more := ""
		if len(vals) > most {
			more = fmt.Sprintf(" and %d more", len(vals)-most)
			vals = vals[:most]
		}
		fmt.Fprintf(&b, "; stored %s values: %s%s", l.Name, strings.Join(vals, ", "), more)
	}
	if b.Len() == 0 {
		return " (kdelta results ls lists them)"
	}
	return b.String()
}

// storedLabels lists the names of the labels the sets carry, in order,
// for an error naming a label that none of them has.
func storedLabels(infos []store.Info) string {
	seen := map[string]bool{}
	var names []string
	for _, in := range infos {
		for k := range in.Labels {
			if !seen[k] {
				seen[k] = true
				names = append(names, k)
			}
		}
	}
	if len(names) == 0 {
		return "they carry none"
	}
	sort.Strings(names)
	return "stored labels: " + strings.Join(names, ", ")
}

// Candidates lists sets on one line, newest first, for an error that
// asks the user to choose.
func Candidates(infos []store.Info) string {
	const most = 8
	var parts []string
	for i := len(infos) - 1; i >= 0 && len(parts) < most; i-- {
		in := infos[i]
		parts = append(parts, fmt.Sprintf("%s (%s%s)", in.ID, in.Created.UTC().Format("2006-01-02 15:04Z"), labelsAfter(in.Labels)))
	}
	s := strings.Join(parts, "; ")
	if len(infos) > most {
		s += fmt.Sprintf("; and %d older", len(infos)-most)
	}
	return s
}

// labelsAfter is " k=v k=v", or "" for no labels.
func labelsAfter(l map[string]string) string {
	if len(l) == 0 {
		return ""
	}
	return " " + result.FormatPairs(l, " ")
}

// ParseLabelQuery reads a reference as a label query, k=v[,k=v...], and
// says whether it is one. The rule, the same everywhere a set is named:
// a reference that names an existing file is that file (callers look
// first); else it is a label query when it has an "=" and the key before
// its first "=" holds no "/" — so branch=feat/x is a query, and
// runs/a=b.json a path. A value may hold "/" and ",": a "," starts the
// next label only when what follows it up to an "=" is a key (no "/"),
// so branch=fix,v2 is one label and host=p10,kernel=6.18 two.
func ParseLabelQuery(s string) ([]store.Label, bool) {
	if k, _, ok := strings.Cut(s, "="); !ok || !isLabelKey(k) {
		return nil, false
	}
	var ls []store.Label
	for _, part := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(part, "=")
		if !ok || !isLabelKey(k) {
			ls[len(ls)-1].Value += "," + part
			continue
		}
		ls = append(ls, store.Label{Name: k, Value: v})
	}
	return ls, true
}

func isLabelKey(k string) bool {
	return k != "" && !strings.ContainsRune(k, '/') && !strings.ContainsRune(k, os.PathSeparator)
}

// ParseLabelFlags reads --label k=v flags.
func ParseLabelFlags(flags []string) ([]store.Label, error) {
	var ls []store.Label
	for _, l := range flags {
		k, v, ok := strings.Cut(l, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("--label: %q is not key=value", l)
		}
		ls = append(ls, store.Label{Name: k, Value: v})
	}
	return ls, nil
}

// looksLikeID tells whether s can be (the start of) a store id, which is
// a time and a hex suffix (20260701T120000-1a2b3c4d5e6f): letters, digits
// and dashes only, so nothing with a dot or a slash, which are paths.
func looksLikeID(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// LoadFile reads a kdelta result set or, failing that, imports the file,
// reading it through result.ReadInput (bounded; given up when ctx is
// done).
func LoadFile(ctx context.Context, path string) (*result.Set, error) {
	data, err := result.ReadInput(ctx, path, result.MaxSetBytes, "a result set or a file to import")
	if err != nil {
		return nil, err
	}
	if s, err := result.Decode(path, data); err == nil {
		return s, nil
	} else if strings.HasPrefix(strings.TrimSpace(string(data)), "{") && strings.Contains(string(data), `"kdelta/result/`) {
		return nil, err
	}
	return result.Import(path, data, "")
}

// NoSeries is the error of a history query that found no series: no set
// carries the --label query (flags, as given), none of the workload's sets
// carries the --by label (a typo, say), or the store has no measured runs
// of the workload (ref, as given) and metric.
func NoSeries(ctx context.Context, st store.Store, q history.Query, ref string, flags []string) error {
	if len(q.Labels) > 0 {
		infos, err := st.List(ctx, store.Filter{Labels: q.Labels})
		if err != nil {
			return err
		}
		if len(infos) == 0 {
			return fmt.Errorf("history: --label %w", noneCarries(ctx, st, strings.Join(flags, ","), q.Labels))
		}
	}
	if q.By != history.ByTime {
		infos, err := st.List(ctx, store.Filter{Workload: q.Workload, Labels: q.Labels})
		if err != nil {
			return err
		}
		if len(infos) > 0 && !anyCarries(infos, q.By) {
			return fmt.Errorf("history: --by %s: no result set of %s in %s carries the label %s (%s)", q.By, ref, st.Location(), q.By, storedLabels(infos))
		}
	}
	what := q.Workload
	if q.Metric != "" {
		what += " " + q.Metric
	}
	return fmt.Errorf("history: no measured runs of %s in %s (stored workloads: %s)", what, st.Location(), StoredWorkloads(ctx, st))
}

// anyCarries tells whether any of infos carries the label.
func anyCarries(infos []store.Info, label string) bool {
	for _, in := range infos {
		if _, ok := in.Labels[label]; ok {
			return true
		}
	}
	return false
}

// StoredWorkloads lists the workloads the store has sets of, for an
// error about one it has none of.
func StoredWorkloads(ctx context.Context, st store.Store) string {
	infos, err := st.List(ctx, store.Filter{})
	if err != nil {
		return err.Error()
	}
	seen := map[string]bool{}
	var ws []string
	for _, in := range infos {
		for _, w := range in.Workload {
			if !seen[w] {
				seen[w] = true
				ws = append(ws, w)
			}
		}
	}
	if len(ws) == 0 {
		return "none yet"
	}
	return strings.Join(ws, ", ")
}
