package stats

import "fmt"

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
