package resolve

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/store"
)

// maxPrevious bounds the stored sets PreviousBoot reads, newest first.
const maxPrevious = 500

// A Pair is the two sets kdelta compare takes when none is named: the
// newest stored set and, as its baseline, the newest earlier one that
// measured the same workloads under the same run conditions in another
// boot or on another kernel; Why says so in one line.
type Pair struct {
	Base, New *result.Set
	Why       string
}

// PreviousBoot finds the previous-boot comparison in the store: the
// newest set and the newest earlier set with the same benchmarks (workload
// and parameters) and run conditions, of another boot (the fingerprints'
// boot ids differ) or another kernel (release, build or kernel label).
// With nothing to pair the error says in one line what is missing.
func (r *Resolver) PreviousBoot() (Pair, error) {
	st, err := r.Store()
	if err != nil {
		return Pair{}, fmt.Errorf("no set named and nothing to compare: %w", err)
	}
	infos, err := st.List(r.ctx, store.Filter{})
	if err != nil {
		return Pair{}, err
	}
	if len(infos) == 0 {
		return Pair{}, fmt.Errorf("no set named, and %s holds none: kdelta compare A B names two", st.Location())
	}
	last := infos[len(infos)-1]
	newest, err := st.Get(r.ctx, last.ID)
	if err != nil {
		return Pair{}, err
	}
	keys := benchKeys(newest)
	read := 0
	for i := len(infos) - 2; i >= 0 && read < maxPrevious; i-- {
		in := infos[i]
		if !slices.Equal(in.Workload, last.Workload) {
			continue // not the same workloads: no need to read it
		}
		read++
		o, err := st.Get(r.ctx, in.ID)
		if err != nil {
			return Pair{}, err
		}
		if !slices.Equal(benchKeys(o), keys) || !maps.Equal(o.Conditions, newest.Conditions) {
			continue
		}
		if why := otherBoot(o, newest); why != "" {
			return Pair{Base: o, New: newest, Why: fmt.Sprintf("no set named: comparing the newest stored set, %s (%s), with the newest earlier one of the same workloads and run conditions, %s (%s): %s",
				newest.ID, when(newest), o.ID, when(o), why)}, nil
		}
	}
	return Pair{}, errors.New(nothingToPair(newest, len(infos)-1))
}

// benchKeys are the keys of s's benchmarks, sorted.
func benchKeys(s *result.Set) []string {
	var ks []string
	for _, b := range s.Benchmarks {
		ks = append(ks, b.Key())
	}
	slices.Sort(ks)
	return ks
}

// otherBoot says how base was measured in another boot or on another
// kernel than set, "" when it was not (or it cannot be told).
func otherBoot(base, set *result.Set) string {
	kernel := func(s *result.Set) string {
		if s.Env != nil && s.Env.Kernel.Release.Known() && s.Env.Kernel.Release.Value != "" {
			v := s.Env.Kernel.Release.Value
			if s.Env.Kernel.Version.Known() {
				v += " " + s.Env.Kernel.Version.Value
			}
			return v
		}
		return s.Labels["kernel"]
	}
	boot := func(s *result.Set) string {
		if s.Env == nil {
			return ""
		}
		return s.Env.BootID
	}
	if ka, kb := kernel(base), kernel(set); ka != "" && kb != "" && ka != kb {
		return fmt.Sprintf("another kernel (%s, then %s)", ka, kb)
	}
	if ba, bb := boot(base), boot(set); ba != "" && bb != "" && ba != bb {
		return fmt.Sprintf("another boot (boot %s, then %s)", short(ba), short(bb))
	}
	return ""
}

// short is the first group of a boot id, enough to tell boots apart.
func short(id string) string {
	if i := strings.IndexByte(id, '-'); i > 0 {
		return id[:i]
	}
	return id
}

// when is a set's time, as the store lists it.
func when(s *result.Set) string { return s.Created.UTC().Format("2006-01-02 15:04Z") }

// nothingToPair is the one line of a store with no set to pair with the
// newest, of the earlier ones there are.
func nothingToPair(newest *result.Set, earlier int) string {
	boot := "its boot unknown"
	if newest.Env != nil && newest.Env.BootID != "" {
		boot = "boot " + short(newest.Env.BootID)
	}
	return fmt.Sprintf("no set named, and no earlier stored set pairs with the newest, %s (%s, %s): none of the %d earlier has the same workloads (%s) and run conditions from another boot or kernel; kdelta compare A B names two",
		newest.ID, when(newest), boot, earlier, strings.Join(benchKeys(newest), " "))
}
