// Package explain gathers kdelta explain's answer to "why is B faster or
// slower than A?" from what two result sets hold, as facts and in the
// order a reviewer asks (seed mails 000, 003, 004): the verdict on each
// workload's primary metric; whether the setups were the same (run
// conditions, then every fingerprint difference that moves a figure, and
// "same" said for the items reviewers ask about); whether the kernel did
// more work or the same work more slowly (per-operation counters with
// their own verdicts); where the time went (the profile diff, or the
// command that would record one); and the design the verdict rests on,
// with the warnings that weaken it. It guesses no cause: every line is a
// measurement or a difference of the sets. The renderers are in report.
package explain

import (
	"slices"
	"strings"

	"github.com/kdelta/kdelta/internal/compare"
	"github.com/kdelta/kdelta/internal/profile"
	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/sysinfo"
)

// ReviewerItems are the fingerprint items reviewers ask about first
// (seed 000: "Does your preemption mode remain the same in the two
// cases?"): the report says "same" for each that is, not only what
// differs.
var ReviewerItems = []string{
	"preempt.mode", "preempt.model", "preempt.dynamic", "preempt_rcu", "hz",
	"smt.control", "selinux", "mitigations", "cpufreq.governor", "thp",
	"kernel.cmdline", "cgroup.cpu_quota", "virtualization",
}

// TopSymbols is how many symbols of a profile diff the report lists.
const TopSymbols = 6

// A Report is the explanation of B against A.
type Report struct {
	Names [2]string
	// Verdicts are the rows of each benchmark's primary metric.
	Verdicts []compare.Row
	// Conditions are the run conditions that differ.
	Conditions []result.ConditionDiff
	// Setup holds the fingerprint differences that can move a figure,
	// then the reviewer items that are the same (Same set); Other counts
	// the differences not shown.
	Setup []sysinfo.Difference
	Other int
	// Hosts are the two sets' host labels when they differ.
	Hosts [2]string
	// Work holds, per benchmark, its counter and rusage rows.
	Work []Work
	// Profiles hold, per benchmark, the profile diff or how to get one.
	Profiles []Profile
	// Warnings are what weakens the verdicts: the comparison's and the
	// sets' own, each once.
	Warnings []string
}

// Work is one benchmark's counters, per operation where the runs count
// operations, with their verdicts.
type Work struct {
	Bench string
	Rows  []compare.Row
}

// A Profile is one benchmark's profile diff (the symbols whose share
// changed most first), or the command that would record the profiles.
type Profile struct {
	Bench string
	Diff  *profile.Diff
	// Record is the command that would record profiles of the sides
	// that have none ("" when both have them).
	Record []string
	// Symbol is the symbol whose share changed most of those both sides
	// sampled, Lines its
	// instructions (or source lines) lined up in both sides' annotations,
	// the ones whose share of its samples changed most first; NoLines
	// says why there are none (a profile recorded without annotations).
	Symbol  string
	Lines   []profile.AnnotatedLineChange
	NoLines string
}

// TopLines is how many annotated lines of the top symbol the report lists.
const TopLines = 6

// Options say how the sets are compared: α, the noise band, the test and
// the host's session noise, as compare takes them. Metrics is ignored:
// explain compares every metric and counter.
type Options = compare.Options

// Explain explains b against a, the baseline, named as compare names
// them.
func Explain(a, b compare.Input, opt Options) (*Report, error) {
	opt.Metrics = "all"
	cr, err := compare.Compare([]compare.Input{a, b}, opt)
	if err != nil {
		return nil, err
	}
	rep := &Report{Names: [2]string{a.Name, b.Name}, Conditions: cr.Conditions[0]}
	for _, row := range cr.Rows {
		bench := strings.TrimSpace(row.Workload + "  " + row.Params)
		switch {
		case row.Primary:
			rep.Verdicts = append(rep.Verdicts, row)
		case row.Counter:
			if n := len(rep.Work); n == 0 || rep.Work[n-1].Bench != bench {
				rep.Work = append(rep.Work, Work{Bench: bench})
			}
			w := &rep.Work[len(rep.Work)-1]
			w.Rows = append(w.Rows, row)
		}
	}
	rep.Setup, rep.Other = setup(a.Set.Env, b.Set.Env)
	if ha, hb := a.Set.Labels["host"], b.Set.Labels["host"]; ha != hb {
		rep.Hosts = [2]string{ha, hb}
	}
	rep.Profiles = profiles(a, b)
	seen := map[string]bool{}
	add := func(w string) {
		if !seen[w] {
			seen[w] = true
			rep.Warnings = append(rep.Warnings, w)
		}
	}
	for _, row := range rep.Verdicts {
		for _, w := range row.Vs[0].Warnings {
			add(row.Metric.Name + ": " + w)
		}
	}
	for _, w := range cr.Warnings {
		add(w)
	}
	return rep, nil
}

// setup lists the fingerprint differences that can move a figure, then
// the reviewer items that are the same, and counts the others.
func setup(a, b *sysinfo.Fingerprint) ([]sysinfo.Difference, int) {
	if a == nil || b == nil {
		return nil, 0
	}
	var out []sysinfo.Difference
	other := 0
	shown := map[string]bool{}
	for _, d := range sysinfo.Diff(a, b) {
		switch {
		case d.Same:
			out = append(out, d)
		case d.Relevant || d.Field == "kernel.cmdline" || strings.HasPrefix(d.Field, "tool."):
			out = append(out, d)
		default:
			other++
			continue
		}
		shown[d.Field] = true
	}
	for _, d := range sysinfo.Values(a, b, ReviewerItems...) {
		if d.Same && !shown[d.Field] {
			out = append(out, d)
		}
	}
	return out, other
}

// profiles diffs the profiles of each benchmark both sets hold, or says
// how to record them.
func profiles(a, b compare.Input) []Profile {
	var out []Profile
	for _, ba := range a.Set.Benchmarks {
		bb, _ := compare.Pair(ba, len(a.Set.Benchmarks), b.Set.Benchmarks, compare.Pairing{})
		if bb == nil || ba.Skipped != "" || bb.Skipped != "" {
			continue
		}
		p := Profile{Bench: strings.TrimSpace(ba.Workload + "  " + result.FormatParams(ba.Params))}
		if len(ba.Profiles) == 0 || len(bb.Profiles) == 0 {
			for _, s := range []*result.Set{a.Set, b.Set} {
				if len(p.Record) == 0 && !hasProfiles(s, ba.Workload) {
					p.Record = recordCommand(s)
				}
			}
			out = append(out, p)
			continue
		}
		d, err := profile.Compare(side(a.Name, ba), side(b.Name, bb), "share")
		if err != nil {
			continue
		}
		d.Name = p.Bench
		p.Diff = d
		annotate(&p, a, b, strings.TrimSuffix(ba.Key(), ":"))
		out = append(out, p)
	}
	return out
}

func hasProfiles(s *result.Set, workload string) bool {
	return slices.ContainsFunc(s.Benchmarks, func(b *result.Benchmark) bool {
		return b.Workload == workload && len(b.Profiles) > 0
	})
}

func side(name string, b *result.Benchmark) profile.Side {
	s := profile.Side{Name: name}
	for i := range b.Profiles {
		s.Profiles = append(s.Profiles, &b.Profiles[i])
	}
	return s
}

// recordCommand is the command line of set with --profile added after
// its subcommand, as the user would run it again; for kdelta stat (which
// does not profile) perf record of its command; for an import, which
// recorded nothing, the kdelta run of its workloads.
func recordCommand(s *result.Set) []string {
	cmd := s.Command
	if len(cmd) >= 2 && cmd[0] == "kdelta" && cmd[1] == "stat" {
		for i, a := range cmd {
			if a == "--" {
				return append([]string{"perf", "record", "-g", "--"}, cmd[i+1:]...)
			}
		}
	}
	if len(cmd) >= 2 && cmd[0] == "kdelta" && (cmd[1] == "run" || cmd[1] == "ab") {
		out := append([]string{}, cmd[:2]...)
		out = append(out, "--profile")
		for _, a := range profiledOutput(cmd[2:]) {
			if a != "--profile" {
				out = append(out, a)
			}
		}
		return out
	}
	out := []string{"kdelta", "run", "--profile"}
	for _, b := range s.Benchmarks {
		spec := b.Workload
		if p := result.FormatParams(b.Params); p != "" {
			spec += ":" + p
		}
		out = append(out, spec)
	}
	return out
}

// annotate lines up the annotations of the diff's top symbol in both
// sides' profiles of benchmark key.
func annotate(p *Profile, a, b compare.Input, key string) {
	if len(p.Diff.Rows) == 0 {
		return
	}
	// The symbol that changed most among those both sides sampled: one
	// sampled on a side only has nothing to line up.
	p.Symbol = p.Diff.Rows[0].Symbol
	for _, r := range p.Diff.Rows {
		if r.A.Listed > 0 && r.B.Listed > 0 {
			p.Symbol = r.Symbol
			break
		}
	}
	o := profile.AnnotateOptions{Only: key}
	aa, err := profile.AnnotateSet(a.Name, a.Set, p.Symbol, o)
	if err == nil {
		var ab *profile.Annotation
		if ab, err = profile.AnnotateSet(b.Name, b.Set, p.Symbol, o); err == nil {
			p.Lines = profile.DiffAnnotations(aa, ab)
			if len(p.Lines) > TopLines {
				p.Lines = p.Lines[:TopLines]
			}
			return
		}
	}
	p.NoLines = err.Error()
}
