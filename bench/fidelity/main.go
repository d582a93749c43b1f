// Command fidelity runs each kdelta workload beside the C reference users
// already trust, interleaved pair by pair with the same CPU placement, and
// prints the median ratio kdelta/reference of each figure, plus context
// switches and system calls per operation for both sides, counted by the
// real perf stat. It is the proof that kdelta measures the same kernel work.
//
//	go run ./bench/fidelity -kdelta /path/to/kdelta [-pairs 7] [-only syscall,pipe] [-fifo 98] [-passes default,fifo] [-rounds 3]
//
// Every placement is measured by default: each pair at default scheduling
// (pinned to one CPU, or unpinned over both), then the pinned pairs again
// with both sides under SCHED_FIFO (chrt -f, --fifo), as seed 004 ran. The
// run ends with a table of every pair and pass for the README.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/kdelta/kdelta/internal/stats"
)

// placement returns the reference's command prefix and kdelta's flags for
// the same CPUs and policy.
func placement(p pair) (ref []string, kd []string) {
	ref = []string{"taskset", "-c", p.cpus}
	kd = []string{"--cpus", p.cpus}
	if p.fifo > 0 {
		ref = append([]string{"chrt", "-f", strconv.Itoa(p.fifo)}, ref...)
		kd = append(kd, "--fifo", strconv.Itoa(p.fifo))
	}
	return ref, kd
}

// policy names a pair's scheduling: "default" or "FIFO 98".
func (p pair) policy() string {
	if p.fifo > 0 {
		return "FIFO " + strconv.Itoa(p.fifo)
	}
	return "default"
}

// pinned tells whether p's tasks are pinned: all on one CPU (where FIFO
// is meaningful for a ping-pong: both tasks compete on it at one
// priority), or each on a CPU of its own.
func (p pair) pinned() bool { return p.split || !strings.ContainsAny(p.cpus, ",-") }

// where names p's placement for the table.
func (p pair) where() string {
	if p.split {
		return "split over " + where(p.cpus)
	}
	return where(p.cpus)
}

// A figure is one number each side reports, compared as a ratio.
type figure struct {
	name   string
	better string // lower or higher, to say which side is faster
	ref    func(out string) (float64, error)
	kdelta string // metric name in the kdelta result set
}

// A pair is one workload configuration run on both sides.
type pair struct {
	name   string
	cpus   string   // same placement on both sides: taskset -c and --cpus
	split  bool     // each of the two tasks on a CPU of its own, within cpus
	ref    []string // the reference command
	spec   string   // the kdelta workload spec
	ops    float64  // operations per run, for per-op counts
	figs   []figure
	tool   string // binary the reference needs
	target float64
	fifo   int // SCHED_FIFO priority of both sides; 0: default scheduling
	// short is the same pair with a tenth of the operations: per-op counts
	// are the difference of the two runs' counts over the difference of
	// their operations, so start-up and exit cancel out.
	short *pair
}

func main() {
	kd := flag.String("kdelta", "", "path to the kdelta binary (required)")
	pairs := flag.Int("pairs", 7, "interleaved pairs per workload (at least 5)")
	only := flag.String("only", "", "comma-separated workload names to run (default all)")
	fifo := flag.Int("fifo", 98, "SCHED_FIFO priority of the fifo pass (chrt -f, --fifo)")
	var c cbuilt
	flag.StringVar(&c.pingpong, "pingpong", "pingpong", "path to bench/fidelity/pingpong/pingpong.c built (fidelity.sh builds it where gcc is)")
	flag.StringVar(&c.msgcStatic, "msgc-static", "msgc-static", "path to bench/fidelity/msgc/msgc.c built with -static")
	flag.StringVar(&c.msgcDynamic, "msgc-dynamic", "msgc-dynamic", "path to bench/fidelity/msgc/msgc.c built against the shared C library")
	rounds := flag.Int("rounds", 3, "rounds of perf stat per pair for the per-operation counts (median taken; at least 1)")
	passes := flag.String("passes", "default,fifo", "which passes to run: default (every pair, default scheduling), fifo (the pinned pairs under SCHED_FIFO), all (every pair under SCHED_FIFO)")
	flag.Parse()
	if *kd == "" || *pairs < 5 || *fifo < 1 || *fifo > 99 || *rounds < 1 {
		fmt.Fprintln(os.Stderr, "fidelity: -kdelta PATH required, -pairs at least 5, -fifo 1-99, -rounds at least 1")
		os.Exit(2)
	}
	want := map[string]bool{}
	for _, n := range strings.Split(*only, ",") {
		if n != "" {
			want[n] = true
		}
	}
	var todo []pair
	for _, pass := range strings.Split(*passes, ",") {
		for _, p := range suite(*kd, c) {
			if len(want) > 0 && !want[p.name] && !want[strings.SplitN(p.name, " ", 2)[0]] {
				continue
			}
			switch pass {
			case "default":
			case "fifo":
				if !p.pinned() {
					continue
				}
				p.fifo = *fifo
			case "all":
				p.fifo = *fifo
			default:
				fmt.Fprintf(os.Stderr, "fidelity: -passes: unknown pass %q (default, fifo, all)\n", pass)
				os.Exit(2)
			}
			if p.short != nil {
				p.short.fifo = p.fifo
			}
			todo = append(todo, p)
		}
	}
	failed := false
	var table []row
	for _, p := range todo {
		if _, err := exec.LookPath(p.tool); err != nil {
			fmt.Printf("%-28s reference %s not installed: not measured\n", p.name, p.tool)
			failed = true
			continue
		}
		rows, err := measure(*kd, p, *pairs, *rounds)
		if err != nil {
			fmt.Printf("%-28s %s error: %v\n", p.name, p.policy(), err)
			failed = true
		}
		table = append(table, rows...)
	}
	printTable(table)
	if failed {
		os.Exit(1)
	}
}

// A row is one figure of one pair and pass, for the closing table.
type row struct {
	p            pair
	fig          string
	ratio        float64
	lo, hi       float64
	kcv, rcv     float64
	cvLo, cvHi   float64 // 95% interval of the spread ratio
	kperOp, rOp  map[string]float64
	withinTarget bool
	modes        string // modeSplit's, for a figure with two modes
}

// printTable prints every row as a markdown table: the README's fidelity
// table is this output.
func printTable(rows []row) {
	if len(rows) == 0 {
		return
	}
	fmt.Println()
	fmt.Println("| workload | placement | scheduling | figure | kdelta/ref (spread) | CV kdelta vs ref (ratio's 95% interval) | switches/op kdelta vs ref | migrations/op kdelta vs ref |")
	fmt.Println("|---|---|---|---|---|---|---|---|")
	for _, r := range rows {
		mark := ""
		if !r.withinTarget {
			mark = fmt.Sprintf(" (outside ±%.0f%%)", r.p.target*100)
		}
		if r.modes != "" {
			mark += "; " + r.modes
		}
		fmt.Printf("| %s | %s | %s | %s | %.3f (%.2f–%.2f)%s | %.1f%% vs %.1f%% (%.2f–%.2f) | %.4f vs %.4f | %.4f vs %.4f |\n",
			r.p.name, r.p.where(), r.p.policy(), r.fig, r.ratio, r.lo, r.hi, mark, r.kcv, r.rcv, r.cvLo, r.cvHi,
			r.kperOp["context-switches"], r.rOp["context-switches"], r.kperOp["cpu-migrations"], r.rOp["cpu-migrations"])
	}
}

func measure(kd string, p pair, n, rounds int) ([]row, error) {
	ratios := make([][]float64, len(p.figs))
	refs := make([][]float64, len(p.figs))
	kds := make([][]float64, len(p.figs))
	for i := 0; i < n; i++ {
		// Alternate which side goes first, so drift hits both equally.
		sides := []string{"ref", "kdelta"}
		if i%2 == 1 {
			sides = []string{"kdelta", "ref"}
		}
		got := map[string][]float64{}
		for _, side := range sides {
			var vals []float64
			var err error
			if side == "ref" {
				vals, err = runRef(p)
			} else {
				vals, err = runKdelta(kd, p)
			}
			if err != nil {
				return nil, fmt.Errorf("%s: %w", side, err)
			}
			got[side] = vals
		}
		for f := range p.figs {
			ratios[f] = append(ratios[f], got["kdelta"][f]/got["ref"][f])
			refs[f] = append(refs[f], got["ref"][f])
			kds[f] = append(kds[f], got["kdelta"][f])
		}
	}
	var rows []row
	for f, fig := range p.figs {
		r := median(ratios[f])
		verdict := "within target"
		within := r >= 1-p.target && r <= 1+p.target
		if !within {
			verdict = fmt.Sprintf("OUTSIDE ±%.0f%%", p.target*100)
		}
		fmt.Printf("%-28s %-8s %-14s kdelta/ref median %.3f  (ref median %s, %d pairs, spread %.3f-%.3f) %s\n",
			p.name, p.policy(), fig.name, r, strconv.FormatFloat(median(refs[f]), 'g', 5, 64), n, minf(ratios[f]), maxf(ratios[f]), verdict)
		// Precision: the run-to-run CV of each side, and their ratio (a
		// better instrument is the quieter one: ratio at most 1).
		// The ratio's 95% interval says whether n pairs can tell the two
		// spreads apart at all (stats.SpreadRatio).
		kcv, rcv := stats.Summarize(kds[f]).CV, stats.Summarize(refs[f]).CV
		sr, slo, shi := stats.SpreadRatio(kds[f], refs[f], 0.95)
		fmt.Printf("%-28s %-8s %-14s CV kdelta %.1f%%  ref %.1f%%  ratio %.2f (of log spreads %.2f, 95%% interval %.2f–%.2f)\n",
			p.name, p.policy(), fig.name, kcv, rcv, kcv/rcv, sr, slo, shi)
		modes := modeSplit(kds[f], refs[f])
		if modes != "" {
			fmt.Printf("%-28s %-8s %-14s %s\n", p.name, p.policy(), fig.name, modes)
		}
		rows = append(rows, row{p: p, fig: fig.name, ratio: r, lo: minf(ratios[f]), hi: maxf(ratios[f]), kcv: kcv, rcv: rcv, cvLo: slo, cvHi: shi, withinTarget: within, modes: modes})
	}
	k, ref, err := perOp(kd, p, rounds)
	for i := range rows {
		rows[i].kperOp, rows[i].rOp = k, ref
	}
	return rows, err
}

const events = "context-switches,cpu-migrations,raw_syscalls:sys_enter"

// perOpEvents are the events compared per operation.
var perOpEvents = []string{"context-switches", "cpu-migrations", "raw_syscalls:sys_enter"}

// counts runs both sides of p once under perf stat.
func counts(kd string, p pair) (ref, kdelta map[string]float64, err error) {
	pre, kflags := placement(p)
	refArgs := append(append([]string{"stat", "-x,", "-e", events, "--"}, pre...), p.ref...)
	if ref, err = perfStat(refArgs); err != nil {
		return nil, nil, fmt.Errorf("perf stat reference: %w", err)
	}
	kdArgs := append([]string{"stat", "-x,", "-e", events, "--", kd, "run", p.spec, "-r", "1", "--warmup", "0", "--counters", "none", "--monitor", "none"}, kflags...)
	if kdelta, err = perfStat(kdArgs); err != nil {
		return nil, nil, fmt.Errorf("perf stat kdelta: %w", err)
	}
	return ref, kdelta, nil
}

// perOp counts context switches and syscalls per operation on both sides
// with perf stat: the median over the rounds of the difference between a
// full and a short run, divided by the difference in operations. The
// rounds' spread is printed beside it: a few hundred migrations among the
// 400 tasks of a messaging run move from round to round.
func perOp(kd string, p pair, rounds int) (kdelta, ref map[string]float64, err error) {
	var rs, ks = map[string][]float64{}, map[string][]float64{}
	for round := 0; round < rounds; round++ {
		rl, kl, err := counts(kd, p)
		if err != nil {
			return nil, nil, err
		}
		rsh, ksh := map[string]float64{}, map[string]float64{}
		dops := p.ops
		if p.short != nil {
			if rsh, ksh, err = counts(kd, *p.short); err != nil {
				return nil, nil, err
			}
			dops = p.ops - p.short.ops
		}
		for _, ev := range perOpEvents {
			rs[ev] = append(rs[ev], (rl[ev]-rsh[ev])/dops)
			ks[ev] = append(ks[ev], (kl[ev]-ksh[ev])/dops)
		}
	}
	kdelta, ref = map[string]float64{}, map[string]float64{}
	for _, ev := range perOpEvents {
		r, k := median(rs[ev]), median(ks[ev])
		kdelta[ev], ref[ev] = k, r
		fmt.Printf("%-28s %-8s %-22s per op: kdelta %.4f (%.4f–%.4f)  ref %.4f (%.4f–%.4f)  ratio %.3f\n",
			p.name, p.policy(), ev, k, minf(ks[ev]), maxf(ks[ev]), r, minf(rs[ev]), maxf(rs[ev]), k/r)
	}
	return kdelta, ref, nil
}

func perfStat(args []string) (map[string]float64, error) {
	cmd := exec.Command("perf", args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.Stdout = new(bytes.Buffer)
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%v: %s", err, tail(stderr.String()))
	}
	counts := map[string]float64{}
	for _, line := range strings.Split(stderr.String(), "\n") {
		f := strings.Split(line, ",")
		if len(f) < 3 {
			continue
		}
		v, err := strconv.ParseFloat(f[0], 64)
		if err != nil {
			continue
		}
		counts[f[2]] = v
	}
	return counts, nil
}

func runRef(p pair) ([]float64, error) {
	pre, _ := placement(p)
	cmd := exec.Command(pre[0], append(pre[1:], p.ref...)...)
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%s: %v: %s", strings.Join(p.ref, " "), err, tail(out.String()))
	}
	vals := make([]float64, len(p.figs))
	for i, f := range p.figs {
		v, err := f.ref(out.String())
		if err != nil {
			return nil, fmt.Errorf("%s: %w", strings.Join(p.ref, " "), err)
		}
		vals[i] = v
	}
	return vals, nil
}

func runKdelta(kd string, p pair) ([]float64, error) {
	dir, err := os.MkdirTemp("", "fidelity-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "r.json")
	_, kflags := placement(p)
	args := append([]string{"run", p.spec, "-r", "1", "--warmup", "0", "--counters", "none", "--monitor", "none", "-o", path}, kflags...)
	cmd := exec.Command(kd, args...)
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("kdelta run %s: %v: %s", p.spec, err, tail(out.String()))
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var set struct {
		Benchmarks []struct {
			Runs []struct {
				Status string             `json:"status"`
				Reason string             `json:"reason"`
				Values map[string]float64 `json:"values"`
			} `json:"runs"`
		} `json:"benchmarks"`
	}
	if err := json.Unmarshal(data, &set); err != nil {
		return nil, err
	}
	if len(set.Benchmarks) != 1 || len(set.Benchmarks[0].Runs) != 1 {
		return nil, errors.New("kdelta wrote no run")
	}
	r := set.Benchmarks[0].Runs[0]
	if r.Status != "ok" {
		return nil, fmt.Errorf("kdelta run %s: %s: %s", p.spec, r.Status, r.Reason)
	}
	vals := make([]float64, len(p.figs))
	for i, f := range p.figs {
		v, ok := r.Values[f.kdelta]
		if !ok {
			return nil, fmt.Errorf("kdelta run %s: no metric %s", p.spec, f.kdelta)
		}
		vals[i] = v
	}
	return vals, nil
}

// grab returns a parser of the first float that re captures.
func grab(re string) func(string) (float64, error) {
	rx := regexp.MustCompile(re)
	return func(out string) (float64, error) {
		m := rx.FindStringSubmatch(out)
		if m == nil {
			return 0, fmt.Errorf("no match for %q in output: %s", re, tail(out))
		}
		return strconv.ParseFloat(m[1], 64)
	}
}

func scaled(f func(string) (float64, error), k float64) func(string) (float64, error) {
	return func(out string) (float64, error) {
		v, err := f(out)
		return v * k, err
	}
}

// modeSplit describes a figure whose runs fall into two modes, as an
// unpinned ping-pong's do (the pair sharing one CPU, a few microseconds a
// round trip, or one CPU each, tens): the pooled runs of both sides span
// more than 4x. A pair's ratio then mostly says which mode each side's
// run fell into, so this says how many runs of each side fell into the
// low mode (below the geometric middle of the pooled range) and the
// ratio of the two sides' medians within each mode. "" for one mode.
func modeSplit(kd, ref []float64) string {
	all := append(append([]float64(nil), kd...), ref...)
	lo, hi := minf(all), maxf(all)
	if lo <= 0 || hi/lo <= 4 {
		return ""
	}
	cut := math.Sqrt(lo * hi)
	split := func(xs []float64) (low, high []float64) {
		for _, x := range xs {
			if x < cut {
				low = append(low, x)
			} else {
				high = append(high, x)
			}
		}
		return low, high
	}
	kl, kh := split(kd)
	rl, rh := split(ref)
	within := func(k, r []float64) string {
		if len(k) == 0 || len(r) == 0 {
			return "-"
		}
		return strconv.FormatFloat(median(k)/median(r), 'f', 3, 64)
	}
	return fmt.Sprintf("two modes (runs span %.0fx, cut at %.3g): low mode kdelta %d of %d runs, ref %d of %d; median ratio within the low mode %s, the high %s",
		hi/lo, cut, len(kl), len(kd), len(rl), len(ref), within(kl, rl), within(kh, rh))
}

func median(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

func minf(xs []float64) float64 {
	m := xs[0]
	for _, x := range xs {
		if x < m {
			m = x
		}
	}
	return m
}

func maxf(xs []float64) float64 {
	m := xs[0]
	for _, x := range xs {
		if x > m {
			m = x
		}
	}
	return m
}

func tail(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > 300 {
		s = "..." + s[len(s)-300:]
	}
	return s
}
