package calibrate

import (
	"testing"

	"github.com/kdelta/kdelta/internal/stats"
	"github.com/kdelta/kdelta/internal/store"
)

// TestWins: which measured noise the store keeps for a key, the first two
// steps of the order a comparison takes its session noise in (issue 34,
// scope 2): a calibration of the host over anything learned from twins,
// whatever their sessions; a newer calibration over an older; among
// learned noises (and those recorded before sources were kept), the one
// over more sessions.
func TestWins(t *testing.T) {
	noise := func(source string, df int) store.Noise {
		return store.Noise{Source: source, Noise: stats.SessionNoise{SD: 0.05, MeanSD: 0.05, Runs: 4, DF: df}}
	}
	cal, twins := store.NoiseCalibrated, store.NoiseTwins
	for _, tt := range []struct {
		name     string
		new, old store.Noise
		want     bool
	}{
		{"twins of more sessions do not replace a calibration", noise(twins, 9), noise(cal, 2), false},
		{"a calibration replaces twins of more sessions", noise(cal, 2), noise(twins, 9), true},
		{"a newer calibration replaces an older of more sessions", noise(cal, 2), noise(cal, 9), true},
		{"more twins replace fewer", noise(twins, 4), noise(twins, 3), true},
		{"as many twins do not", noise(twins, 3), noise(twins, 3), false},
		{"twins replace a noise of unknown source over fewer sessions", noise(twins, 4), noise("", 3), true},
		{"but not one over as many", noise(twins, 3), noise("", 3), false},
	} {
		if got := Wins(tt.new, tt.old); got != tt.want {
			t.Errorf("%s: Wins = %v", tt.name, got)
		}
	}
}
