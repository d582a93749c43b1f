package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/spf13/pflag"

	"github.com/kdelta/kdelta/internal/history"
	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/store"
)

// storeEnv names the store when --store does not: a lab points every
// kdelta at its PostgreSQL database once.
const storeEnv = "KDELTA_STORE"

const storeUsage = "the store: an SQLite file or a postgres:// URL (default $" + storeEnv + ", else $XDG_DATA_HOME/kdelta/kdelta.db)"

// storeLocation is where the store is: the --store flag, else
// $KDELTA_STORE in the environment Run was given (ctx), else "" for
// store.DefaultPath.
func storeLocation(ctx context.Context, flag string) string {
	if flag != "" {
		return flag
	}
	return getenv(ctx, storeEnv)
}

// recordFlags are --store and --no-store of the commands that make result
// sets (run, stat, import): every set is recorded in the store unless
// --no-store.
type recordFlags struct {
	loc string
	off bool
}

func (rf *recordFlags) register(f *pflag.FlagSet) {
	f.StringVar(&rf.loc, "store", "", storeUsage)
	f.BoolVar(&rf.off, "no-store", false, "do not record the result set in the store")
}

// A recorder saves a set in the store, again after every run of it.
type recorder struct {
	st store.Store
	id string
}

// open opens the store for recording, or returns nil with --no-store. The
// store is opened before anything runs, so a store that cannot be used
// stops the command before it measures rather than after.
func (rf *recordFlags) open(ctx context.Context) (*recorder, error) {
	if rf.off {
		if rf.loc != "" {
			return nil, errors.New("--store and --no-store: give one")
		}
		return nil, nil
	}
	st, err := store.Open(ctx, storeLocation(ctx, rf.loc))
	if err != nil {
		return nil, fmt.Errorf("%w (--no-store goes without the store)", err)
	}
	return &recorder{st: st}, nil
}

// record saves s. It does not take the command's context: the last save,
// after an interrupt, must still reach the store.
func (r *recorder) record(s *result.Set) error {
	if r == nil {
		return nil
	}
	r.id = s.ID
	return r.st.Save(context.Background(), s)
}

// done closes the store and says where the set went.
func (r *recorder) done(stderr io.Writer) {
	if r == nil {
		return
	}
	if r.id != "" {
		fmt.Fprintf(stderr, "kdelta: recorded as %s in %s\n", r.id, r.st.Location())
	}
	r.st.Close()
}

// A resolver turns references on the command line into result sets: a
// file (a kdelta result set, or anything kdelta import reads), the id of a
// set in the store or the start of one, or a label query k=v[,k=v...]
// that selects one set in the store.
type resolver struct {
	ctx context.Context
	loc string // the store's location; "" for the default
	st  store.Store
}

func newResolver(ctx context.Context, storeFlag string) *resolver {
	return &resolver{ctx: ctx, loc: storeLocation(ctx, storeFlag)}
}

// close closes the store if it was opened.
func (r *resolver) close() {
	if r.st != nil {
		r.st.Close()
	}
}

// store opens the store on first use. A store that does not exist yet is
// not created just to be searched.
func (r *resolver) store() (store.Store, error) {
	if r.st != nil {
		return r.st, nil
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
	st, err := store.Open(r.ctx, r.loc)
	if err != nil {
		return nil, err
	}
	r.st = st
	return st, nil
}

// set returns the one result set ref names.
func (r *resolver) set(ref string) (*result.Set, error) {
	if fi, err := os.Stat(ref); err == nil && !fi.IsDir() {
		return loadFile(ref)
	}
	if labels, ok := parseLabelQuery(ref); ok {
		return r.query(ref, labels)
	}
	if !looksLikeID(ref) {
		// A path: say what the file system says.
		return loadFile(ref)
	}
	info, err := r.info(ref)
	if err != nil {
		return nil, err
	}
	return r.st.Get(r.ctx, info.ID)
}

// info finds the stored set whose id is ref or starts with ref.
func (r *resolver) info(ref string) (store.Info, error) {
	st, err := r.store()
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
	return store.Info{}, fmt.Errorf("%s: the start of %d result set ids in %s: %s", ref, len(infos), st.Location(), candidates(infos))
}

// storedID returns the id of the stored set ref names: an id, the start
// of one, or a label query matching one set.
func (r *resolver) storedID(ref string) (string, error) {
	if labels, ok := parseLabelQuery(ref); ok {
		in, err := r.queryInfo(ref, labels)
		return in.ID, err
	}
	in, err := r.info(ref)
	return in.ID, err
}

// query returns the one stored set that carries every label.
func (r *resolver) query(ref string, labels []store.Label) (*result.Set, error) {
	in, err := r.queryInfo(ref, labels)
	if err != nil {
		return nil, err
	}
	return r.st.Get(r.ctx, in.ID)
}

func (r *resolver) queryInfo(ref string, labels []store.Label) (store.Info, error) {
	st, err := r.store()
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
	return store.Info{}, fmt.Errorf("%s: %d result sets in %s match, name one (an id, or more labels): %s", ref, len(infos), st.Location(), candidates(infos))
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

// candidates lists sets on one line, newest first, for an error that
// asks the user to choose.
func candidates(infos []store.Info) string {
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

// parseLabelQuery reads k=v[,k=v...]; ok is false for anything else, so a
// file name with = in it still reads as a file when it exists.
func parseLabelQuery(s string) ([]store.Label, bool) {
	if !strings.Contains(s, "=") || strings.ContainsRune(s, os.PathSeparator) {
		return nil, false
	}
	var ls []store.Label
	for _, part := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(part, "=")
		if !ok || k == "" {
			return nil, false
		}
		ls = append(ls, store.Label{Name: k, Value: v})
	}
	return ls, true
}

// parseLabelFlags reads --label k=v flags.
func parseLabelFlags(flags []string) ([]store.Label, error) {
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

// loadFile reads a kdelta result set or, failing that, imports the file.
func loadFile(path string) (*result.Set, error) {
	data, err := os.ReadFile(path)
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
