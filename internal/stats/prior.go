package stats

import (
	"fmt"
	"math"
)

// A NoiseSource says where a SessionNoise comes from.
type NoiseSource string

// The sources of a session noise. The zero NoiseSource is a measurement
// of the host: kdelta calibrate's A/A sessions, or the twins the store
// learned it from.
const (
	NoiseMeasured NoiseSource = ""
	// NoisePrior is the stated default for a kind of machine and metric
	// (compare.Prior), taken where nothing of the host is known.
	NoisePrior NoiseSource = "prior"
	// NoiseGiven is a figure the user gave (--session-noise P%).
	NoiseGiven NoiseSource = "given"
)

// PriorDF is the degrees of freedom of an assumed session noise: a
// stated figure is taken as it is, not as an estimate from a few
// sessions, so its term adds no uncertainty of its own to the verdict's
// Student t. Whether the figure holds is the assumption the verdict
// names; the price of a wrong one is measured (TestPriorClaimRates).
const PriorDF = 1 << 20

// Assumed returns an assumed session noise of sd (a relative standard
// deviation of a session's centre, about the log scale's) from source,
// for the kind of machine named.
func Assumed(sd float64, source NoiseSource, machine string) SessionNoise {
	return SessionNoise{SD: sd, MeanSD: sd, DF: PriorDF, Source: source, Machine: machine}
}

// Assumption says what a comparison assumed about the session noise, for
// its verdict: "" for a measured noise, else what was assumed and how to
// replace it.
func (n SessionNoise) Assumption() string {
	switch n.Source {
	case NoisePrior:
		return fmt.Sprintf("session noise ±%.1f%% assumed for %s: kdelta calibrate measures this host's", 100*n.SD, n.Machine)
	case NoiseGiven:
		if n.SD == 0 {
			return "runs judged as independent (--session-noise 0): no session noise"
		}
		return fmt.Sprintf("session noise ±%.1f%% given (--session-noise)", 100*n.SD)
	}
	return ""
}

// The centres a Comparison's change relates (Comparison.Centre).
const (
	CentreMeans     = "means"
	CentreGeometric = "geometric means"
	CentreSessions  = "geometric means over sessions"
	CentreShift     = "A's median and its Hodges–Lehmann shift"
	CentreValues    = "single values"
)

// centres are the centres of a comparison across sessions, la and lb its
// levels: on logs the geometric means, of the runs for one session a
// side, else of the sessions' geometric means; on raw values (raw: the
// levels are values over |meanA|, meanA the mean of A's runs) the means
// of the session means.
func centres(la, lb sessionLevels, raw bool, meanA float64) ([2]float64, string) {
	ma, mb := mean(la.means), mean(lb.means)
	if raw {
		scale := math.Abs(meanA)
		return [2]float64{ma * scale, mb * scale}, CentreMeans
	}
	name := CentreGeometric
	if len(la.means) > 1 || len(lb.means) > 1 {
		name = CentreSessions
	}
	return [2]float64{math.Exp(ma), math.Exp(mb)}, name
}
