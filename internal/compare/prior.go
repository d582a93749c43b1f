package compare

import (
	"strings"

	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/stats"
)

// The prior session noise is what a comparison of one session a side
// assumes where nothing of the host is known: no calibration, nothing
// learned from stored twins, or sets of different hosts (an import has
// none). It is a relative standard deviation of a session's centre, by
// the kind of machine the sets' fingerprints name and the kind of metric.
// The figures and where each comes from are the README's table (Session
// noise): they are stated in every verdict that uses them, with the way
// to replace them (kdelta calibrate, --session-noise).
const (
	// PriorVirtual is for a time or rate on a virtual machine: the
	// median of the 20 session noises kdelta calibrate measured on the
	// project's 2-vCPU VM (README, Session noise), 10.35%, rounded.
	PriorVirtual = 0.10
	// PriorBareMetal is for a time or rate on bare metal: no bare-metal
	// host was measured; a third of the virtual figure, as a machine
	// without neighbours sharing its CPUs is the quieter (README).
	PriorBareMetal = 0.03
)

// Machine kinds, as a verdict names them.
const (
	machineVirtual = "a virtual machine"
	machineBare    = "bare metal"
	machineUnknown = "a machine of unknown kind"
)

// MachineKind names the kind of machine set was measured on, from its
// fingerprint's virtualization: "bare metal", "a virtual machine", or "a
// machine of unknown kind" (an import, or a fingerprint that could not
// tell).
func MachineKind(set *result.Set) string {
	if set == nil || set.Env == nil || !set.Env.Virtualization.Known() {
		return machineUnknown
	}
	if v := strings.TrimSpace(set.Env.Virtualization.Value); v == "none" {
		return machineBare
	} else if v == "" {
		return machineUnknown
	}
	return machineVirtual
}

// Prior is the session noise assumed for metric m when the baseline was
// measured on base and the other side on other (either nil when not
// known): bare metal's when both are bare metal, else a virtual
// machine's — the larger, so that a set of unknown origin is not judged
// on the quieter assumption. Counts (a metric with no better side, such
// as context switches per operation) take the figure of times: no count
// was measured apart.
func Prior(base, other *result.Set) stats.SessionNoise {
	ka, kb := MachineKind(base), MachineKind(other)
	switch {
	case ka == machineBare && kb == machineBare:
		return stats.Assumed(PriorBareMetal, stats.NoisePrior, machineBare)
	case ka == machineVirtual || kb == machineVirtual:
		return stats.Assumed(PriorVirtual, stats.NoisePrior, machineVirtual)
	}
	return stats.Assumed(PriorVirtual, stats.NoisePrior, machineUnknown)
}

// sessionNoise is the one decision of the session noise of a comparison of
// set i with the baseline, sets[0] (sets nil when unknown), given the
// host's measured one (a calibration, else the noise learned from stored
// twins, as calibrate.Wins keeps them in the store; unknown when the
// sides' hosts or conditions differ, or a side is an import with no
// host): a figure the user gave wins, then the measured noise, then the
// prior.
func (opt Options) sessionNoise(measured stats.SessionNoise, sets []*result.Set, i int) stats.SessionNoise {
	if opt.RunsOnly {
		return stats.SessionNoise{}
	}
	if opt.SessionNoise != nil {
		return stats.Assumed(*opt.SessionNoise, stats.NoiseGiven, "")
	}
	if measured.Known() {
		return measured
	}
	var base, other *result.Set
	if sets != nil {
		base, other = sets[0], sets[i]
	}
	return Prior(base, other)
}
