package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/google/pprof/profile"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	kprofile "github.com/kdelta/kdelta/internal/profile"
	"github.com/kdelta/kdelta/internal/report"
	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/runner"
	"github.com/kdelta/kdelta/internal/workload"
)

func newProfileCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "profile",
		Short: "Show, diff and export perf profiles (kdelta run --profile, perf report/script text, perf.data)",
		Long: `Profiles come from kdelta run --profile (extra runs sampled with perf
record, kept out of statistics), or from files: a kdelta result set, a
perf.data file, the text of perf report --stdio (as perf prints it or as
pasted into a mail, each table a profile) or of perf script.`,
	}
	c.AddCommand(newProfileShowCmd(), newProfileDiffCmd(), newProfilePprofCmd())
	return c
}

func newProfileShowCmd() *cobra.Command {
	var (
		format, only string
		top          int
	)
	c := &cobra.Command{
		Use:   "show FILE",
		Short: "Top symbols of each profile: share, its range over profiles, samples and samples per operation",
		Args:  cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if err := checkProfileFormat(format); err != nil {
				return err
			}
			gs, err := loadProfiles(args[0], only)
			if err != nil {
				return err
			}
			return report.WriteProfiles(c.OutOrStdout(), gs, format, top)
		},
	}
	f := c.Flags()
	f.StringVar(&format, "format", "text", "output format: "+strings.Join(report.ProfileFormats, ", "))
	f.IntVar(&top, "top", 20, "symbols shown per profile; 0: all")
	f.StringVar(&only, "workload", "", "only benchmarks whose name (workload:params) starts with this")
	return c
}

func newProfileDiffCmd() *cobra.Command {
	var (
		format, only, by string
		top              int
	)
	c := &cobra.Command{
		Use:   "diff A [B]",
		Short: "Symbols ordered by the change of their share from A to B, with samples and samples per operation",
		Long: `Diff the profiles of A and B: per symbol A% | B% | Δ (percentage points),
samples on each side and their change, and samples per operation when the
profiles know the operations their run did (a share can fall while the cost
rises). Result sets are matched by benchmark. A symbol missing from a table
that is cut (a pasted report) was below that table's smallest share: it is
shown as <X% and its change as a range. With several profiles per side the
shares are means with their range, and "~" marks a change inside it.

With one file that holds two tables (a mail with both reports), the first
table is A and the second B.`,
		Args: cobra.RangeArgs(1, 2),
		RunE: func(c *cobra.Command, args []string) error {
			if err := checkProfileFormat(format); err != nil {
				return err
			}
			diffs, err := profileDiffs(args, only, by)
			if err != nil {
				return err
			}
			return report.WriteProfileDiffs(c.OutOrStdout(), diffs, format, top)
		},
	}
	f := c.Flags()
	f.StringVar(&format, "format", "text", "output format: "+strings.Join(report.ProfileFormats, ", "))
	f.IntVar(&top, "top", 25, "symbols shown per diff; 0: all")
	f.StringVar(&only, "workload", "", "only benchmarks whose name (workload:params) starts with this")
	f.StringVar(&by, "by", "share", "order of the symbols: "+strings.Join(kprofile.Orders, ", "))
	return c
}

func newProfilePprofCmd() *cobra.Command {
	var output, only string
	c := &cobra.Command{
		Use:   "pprof FILE -o OUT",
		Short: "Export profiles to pprof format (call stacks when recorded with --profile-call-graph)",
		Long: `Write the profiles of FILE as one gzipped pprof protocol buffer, for
go tool pprof and flame-graph tools. Several profiles (profiled runs,
benchmarks, tables) are merged; --workload picks benchmarks.`,
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if output == "" {
				return errors.New("profile pprof: -o/--output is required")
			}
			gs, err := loadProfiles(args[0], only)
			if err != nil {
				return err
			}
			var pps []*profile.Profile
			var skipped []string
			for _, g := range gs {
				for _, p := range g.Profiles {
					pp, err := kprofile.Pprof(p)
					if err != nil {
						skipped = append(skipped, fmt.Sprintf("%s: %v", g.Name, err))
						continue
					}
					pps = append(pps, pp)
				}
			}
			for _, s := range skipped {
				fmt.Fprintf(c.ErrOrStderr(), "kdelta: warning: %s\n", s)
			}
			if len(pps) == 0 {
				return fmt.Errorf("%s: no profile to export", args[0])
			}
			merged, err := profile.Merge(pps)
			if err != nil {
				return fmt.Errorf("merge profiles of %s: %w", args[0], err)
			}
			f, err := os.Create(output)
			if err != nil {
				return err
			}
			if err := merged.Write(f); err != nil {
				f.Close()
				return fmt.Errorf("write %s: %w", output, err)
			}
			return f.Close()
		},
	}
	c.Flags().StringVarP(&output, "output", "o", "", "the pprof file to write (gzipped protobuf)")
	c.Flags().StringVar(&only, "workload", "", "only benchmarks whose name (workload:params) starts with this")
	return c
}

func checkProfileFormat(format string) error {
	for _, f := range report.ProfileFormats {
		if f == format {
			return nil
		}
	}
	return fmt.Errorf("--format: unknown format %q (one of %s)", format, strings.Join(report.ProfileFormats, ", "))
}

// loadProfiles reads the profiles of a file, keeping the groups whose name
// starts with only.
func loadProfiles(path, only string) ([]kprofile.Group, error) {
	var gs []kprofile.Group
	if _, err := os.Stat(path); err != nil {
		// Not a file: a result set the command line can name otherwise
		// (loadAny resolves what kdelta compare accepts).
		set, lerr := loadAny(path)
		if lerr != nil {
			return nil, lerr
		}
		if gs, err = kprofile.FromSet(path, set); err != nil {
			return nil, err
		}
	} else if gs, err = kprofile.Load(path); err != nil {
		return nil, err
	}
	if only == "" {
		return gs, nil
	}
	var out []kprofile.Group
	for _, g := range gs {
		if strings.HasPrefix(g.Name, only) {
			out = append(out, g)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("--workload: no profiled benchmark in %s starts with %q", path, only)
	}
	return out, nil
}

// profileDiffs diffs the profiles of files[0] and files[1] (or the two
// tables of files[0]), benchmark by benchmark.
func profileDiffs(files []string, only, by string) ([]*kprofile.Diff, error) {
	a, err := loadProfiles(files[0], only)
	if err != nil {
		return nil, err
	}
	if len(files) == 1 {
		if len(a) != 1 || len(a[0].Profiles) != 2 {
			return nil, fmt.Errorf("%s: profile diff with one file needs exactly two tables in it; give two files", files[0])
		}
		d, err := kprofile.Compare(
			kprofile.Side{Name: files[0] + " (table 1)", Profiles: a[0].Profiles[:1]},
			kprofile.Side{Name: files[0] + " (table 2)", Profiles: a[0].Profiles[1:]}, by)
		if err != nil {
			return nil, fmt.Errorf("--by: %w", err)
		}
		return []*kprofile.Diff{d}, nil
	}
	b, err := loadProfiles(files[1], only)
	if err != nil {
		return nil, err
	}
	return matchDiffs(files[0], files[1], a, b, by)
}

// matchDiffs pairs groups by name; a file with a single group (an
// imported table) pairs with a single group on the other side whatever
// their names.
func matchDiffs(nameA, nameB string, a, b []kprofile.Group, by string) ([]*kprofile.Diff, error) {
	var diffs []*kprofile.Diff
	add := func(name string, ga, gb kprofile.Group) error {
		d, err := kprofile.Compare(kprofile.Side{Name: nameA, Profiles: ga.Profiles}, kprofile.Side{Name: nameB, Profiles: gb.Profiles}, by)
		if err != nil {
			return fmt.Errorf("--by: %w", err)
		}
		d.Name = name
		diffs = append(diffs, d)
		return nil
	}
	if len(a) == 1 && len(b) == 1 {
		name := a[0].Name
		if a[0].Name != b[0].Name && (a[0].Name == nameA || b[0].Name == nameB) {
			name = ""
		}
		return diffs, add(name, a[0], b[0])
	}
	byName := map[string]kprofile.Group{}
	for _, g := range b {
		byName[g.Name] = g
	}
	for _, ga := range a {
		if gb, ok := byName[ga.Name]; ok {
			if err := add(ga.Name, ga, gb); err != nil {
				return nil, err
			}
		}
	}
	if len(diffs) == 0 {
		return nil, fmt.Errorf("no benchmark profiled in both %s and %s (use --workload to pick one of several)", nameA, nameB)
	}
	return diffs, nil
}

// profileFlags are kdelta run's profiling flags.
type profileFlags struct {
	on, callGraph, systemWide bool
	runs, freq                int
	event                     string
}

func (p *profileFlags) register(f *pflag.FlagSet) {
	f.BoolVar(&p.on, "profile", false, "after the measured runs, profile extra runs with perf record (kept out of statistics)")
	f.IntVar(&p.runs, "profile-runs", 1, "profiled runs per workload, with --profile")
	f.BoolVar(&p.callGraph, "profile-call-graph", false, "record call stacks (perf record -g), for pprof export")
	f.StringVar(&p.event, "profile-event", "cycles", "event to sample; perf falls back to cpu-clock without a PMU")
	f.BoolVar(&p.systemWide, "profile-system-wide", false, "sample every CPU (perf record -a), not only the run's tasks")
	f.IntVar(&p.freq, "profile-freq", 0, "sampling frequency in Hz (perf record -F); 0: perf's default")
}

// check validates the profiling flags before anything runs.
func (p *profileFlags) check(f *pflag.FlagSet) error {
	if !p.on {
		for _, n := range []string{"profile-runs", "profile-call-graph", "profile-event", "profile-system-wide", "profile-freq"} {
			if f.Changed(n) {
				return fmt.Errorf("--%s: needs --profile", n)
			}
		}
		return nil
	}
	if p.runs < 1 {
		return fmt.Errorf("--profile-runs: must be at least 1, got %d", p.runs)
	}
	if p.freq < 0 {
		return fmt.Errorf("--profile-freq: must not be negative, got %d", p.freq)
	}
	if strings.TrimSpace(p.event) == "" {
		return errors.New("--profile-event: empty event")
	}
	return nil
}

// record does the profiled runs after the measured ones and saves the set
// again with them. It does nothing without --profile.
func (p *profileFlags) record(ctx context.Context, set *result.Set, specs []workload.Spec, opt *runner.Options, output string) error {
	if !p.on {
		return nil
	}
	o := kprofile.Options{Event: p.event, CallGraph: p.callGraph, SystemWide: p.systemWide, Freq: p.freq}
	err := kprofile.Runs(ctx, set, specs, opt, o, p.runs)
	if output != "" {
		if serr := result.Save(output, set); serr != nil {
			return serr
		}
	}
	return err
}

// show prints the top symbols of each benchmark's profiles after the
// run's summary.
func (p *profileFlags) show(w io.Writer, set *result.Set) {
	if !p.on || set == nil {
		return
	}
	gs, err := kprofile.FromSet("", set)
	if err != nil {
		return
	}
	fmt.Fprintln(w, "\nprofiles (extra runs, not in the statistics above):")
	report.WriteProfiles(w, gs, "text", 10)
}

// writeProfileDiffs appends the profile diff of every benchmark profiled
// in both the baseline and each other file (compare --profile).
func writeProfileDiffs(w, errw io.Writer, files []string, format string) error {
	if format != "text" && format != "markdown" {
		fmt.Fprintf(errw, "kdelta: warning: --profile: profile diffs are appended to text and markdown output only (kdelta profile diff --format %s A B gives them alone)\n", format)
		return nil
	}
	load := func(f string) []kprofile.Group {
		gs, err := loadProfiles(f, "")
		if err != nil {
			fmt.Fprintf(errw, "kdelta: warning: --profile: %v\n", err)
			return nil
		}
		return gs
	}
	base := load(files[0])
	if base == nil {
		return nil
	}
	for _, other := range files[1:] {
		gs := load(other)
		if gs == nil {
			continue
		}
		diffs, err := matchDiffs(files[0], other, base, gs, "share")
		if err != nil {
			fmt.Fprintf(errw, "kdelta: warning: --profile: %v\n", err)
			continue
		}
		if format == "markdown" {
			fmt.Fprintf(w, "\n## profiles: %s vs %s\n\n", other, files[0])
		} else {
			fmt.Fprintf(w, "\nprofiles: %s vs %s\n\n", other, files[0])
		}
		if err := report.WriteProfileDiffs(w, diffs, format, 15); err != nil {
			return err
		}
	}
	return nil
}
