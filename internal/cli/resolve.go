package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/kdelta/kdelta/internal/calibrate"
	"github.com/kdelta/kdelta/internal/resolve"
	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/stats"
	"github.com/kdelta/kdelta/internal/store"
)

// storeEnv names the store when --store does not: a lab points every
// kdelta at its PostgreSQL database once.
const storeEnv = "KDELTA_STORE"

const storeUsage = "the store: an SQLite file or a postgres:// URL (default $" + storeEnv + ", else $XDG_DATA_HOME/kdelta/kdelta.db)"

// storeLocation is where the store is: the --store flag (given, or put
// in ctx by withStore), else $KDELTA_STORE in the environment Run was
// given (ctx), else "" for store.DefaultPath.
func storeLocation(ctx context.Context, flag string) string {
	if flag != "" {
		return flag
	}
	if loc, _ := ctx.Value(storeFlagKey{}).(string); loc != "" {
		return loc
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
	st  store.Store
	ids []string // the sets saved, each once (the variants of an import)
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
	// An id is said in done only once the store holds its set: a save
	// that failed (a full disk) is the command's error, not "recorded".
	if err := r.st.Save(context.Background(), s); err != nil {
		return err
	}
	if !slices.Contains(r.ids, s.ID) {
		r.ids = append(r.ids, s.ID)
	}
	return nil
}

// done closes the store and says where the set went.
func (r *recorder) done(stderr io.Writer) {
	if r == nil {
		return
	}
	if len(r.ids) > 0 {
		fmt.Fprintf(stderr, "kdelta: recorded as %s in %s\n", strings.Join(r.ids, ", "), r.st.Location())
	}
	lines, err := calibrate.LearnFrom(context.Background(), r.st, r.ids)
	for _, l := range lines {
		fmt.Fprintf(stderr, "kdelta: %s\n", l)
	}
	if err != nil {
		fmt.Fprintf(stderr, "kdelta: warning: %v\n", err)
	}
	r.st.Close()
}

// newResolver returns the resolver of a command, over the store --store
// names (else $KDELTA_STORE, else the default).
func newResolver(ctx context.Context, storeFlag string) *resolve.Resolver {
	return resolve.New(ctx, storeLocation(ctx, storeFlag))
}

// storeNoise finds the host's session noise of a benchmark's metric in
// the store, opened for each question so that it stays closed while runs
// run.
func storeNoise(ctx context.Context, storeFlag string) func(*result.Set, *result.Benchmark, string) stats.SessionNoise {
	return func(set *result.Set, b *result.Benchmark, metric string) stats.SessionNoise {
		refs := newResolver(ctx, storeFlag)
		defer refs.Close()
		return refs.Noise(set, b, metric)
	}
}
