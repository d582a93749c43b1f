package calibrate

import (
	"context"
	"fmt"
	"maps"
	"time"

	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/store"
	"github.com/kdelta/kdelta/internal/sysinfo"
)

// The store learns the host's session noise from the sets it records, not
// only from kdelta calibrate: sets that differ in nothing kdelta knows are
// A/A sessions of one kernel and setup, whatever their user meant them
// for. Twins are sets with the same labels (host and kernel among them),
// the same run conditions, and fingerprints with the same kernel build
// (uname -v) and command line and no performance-relevant difference
// (knobs, mode, governor, SMT...). From the newest MaxTwins of them the
// noise of every benchmark's metrics is estimated as calibrate estimates
// it, and recorded where the store's noise for the key rests on fewer
// sessions — a calibration, or an earlier learning — so that what the
// store knows only grows.

// MinTwins is the fewest sessions the store learns a noise from.
const MinTwins = 3

// MaxTwins bounds the sets read for one learning.
const MaxTwins = 32

// Learn teaches st the session noise that set and its stored twins show,
// and returns the noises it recorded.
func Learn(ctx context.Context, st store.Store, set *result.Set) ([]store.Noise, error) {
	if !set.Complete || set.Env == nil || set.Conditions == nil {
		return nil, nil
	}
	var labels []store.Label
	for k, v := range set.Labels {
		labels = append(labels, store.Label{Name: k, Value: v})
	}
	infos, err := st.List(ctx, store.Filter{Labels: labels})
	if err != nil {
		return nil, err
	}
	twins := []*result.Set{set}
	for i := len(infos) - 1; i >= 0 && len(twins) < MaxTwins; i-- {
		if infos[i].ID == set.ID {
			continue
		}
		o, err := st.Get(ctx, infos[i].ID)
		if err != nil {
			return nil, err
		}
		if Twins(set, o) {
			twins = append(twins, o)
		}
	}
	if len(twins) < MinTwins {
		return nil, nil
	}
	est, _ := Estimate(twins, time.Now().UTC())
	var saved []store.Noise
	for _, n := range est {
		if n.Noise.DF+1 < MinTwins {
			continue
		}
		n.Source = store.NoiseTwins
		if old, err := st.Noise(ctx, n.Key); err == nil && !Wins(n, old) {
			continue
		}
		if err := st.SaveNoise(ctx, n); err != nil {
			return saved, fmt.Errorf("store the learned session noise of %s: %w", n.Key, err)
		}
		saved = append(saved, n)
	}
	return saved, nil
}

// Wins tells whether the measured noise n replaces old, recorded for the
// same key: the one rule of which measurement of the host the store
// keeps, and so the first two steps of the order in which a comparison
// takes its session noise (compare.Options.SessionNoise's figure aside):
// a calibration of the host (a newer one replacing the older), then the
// noise learned from stored twins (more sessions replacing fewer), then,
// with nothing recorded or sides of different hosts, the prior
// (compare.Prior).
func Wins(n, old store.Noise) bool {
	switch {
	case n.Source == store.NoiseCalibrated:
		return true
	case old.Source == store.NoiseCalibrated:
		return false
	}
	return n.Noise.DF > old.Noise.DF
}

// Twins tells whether a and b are A/A sessions: complete sets with the
// same labels and run conditions, of the same kernel build and command
// line, whose fingerprints differ in nothing known to move a figure.
func Twins(a, b *result.Set) bool {
	if !a.Complete || !b.Complete || a.Env == nil || b.Env == nil ||
		!maps.Equal(a.Labels, b.Labels) || a.Conditions == nil || !maps.Equal(a.Conditions, b.Conditions) {
		return false
	}
	ka, kb := a.Env.Kernel, b.Env.Kernel
	if ka.Release != kb.Release || ka.Version != kb.Version || ka.Cmdline != kb.Cmdline {
		return false
	}
	for _, d := range sysinfo.Diff(a.Env, b.Env) {
		if d.Relevant && !d.Same {
			return false
		}
	}
	return true
}

// LearnFrom is Learn for each set of ids in st, the sets a command
// recorded; it returns what was learned, with a line for each.
func LearnFrom(ctx context.Context, st store.Store, ids []string) ([]string, error) {
	var lines []string
	for _, id := range ids {
		set, err := st.Get(ctx, id)
		if err != nil {
			return lines, err
		}
		ns, err := Learn(ctx, st, set)
		for _, n := range ns {
			lines = append(lines, fmt.Sprintf("learned the session noise of %s from %d A/A sessions in the store: ±%.1f%%", n.Key, n.Noise.DF+1, 100*n.Noise.SD))
		}
		if err != nil {
			return lines, err
		}
	}
	return lines, nil
}
