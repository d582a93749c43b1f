// Command interleave measures what running variants interleaved buys. It
// runs the A/A knob test — kdelta ab with two variants that give a knob the
// same value, so any difference between them is the machine's drift and
// noise — k times with --order interleaved (A B A B ...) and k times with
// --order blocks (all of A, then all of B), alternating which order goes
// first, and prints for each order the measured differences (the change of
// B from A on one metric, as kdelta compare computes it), their spread
// (standard deviation and largest magnitude) and how many verdicts claimed
// a change.
//
//	go run ./bench/interleave -kdelta /path/to/kdelta [-k 5] [-r 6]
package main

import (
	"flag"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/stats"
)

func main() {
	kd := flag.String("kdelta", "", "path to the kdelta binary (required)")
	k := flag.Int("k", 5, "A/A experiments per order")
	runs := flag.Int("r", 6, "measured runs per variant (kdelta ab -r)")
	spec := flag.String("workload", "rcu:calls=20", "the workload")
	metric := flag.String("metric", "mean", "the metric compared")
	knobPath := flag.String("knob", "/sys/module/rcutree/parameters/rcu_normal_wake_from_gp", "the knob both variants set")
	flag.Parse()
	if *kd == "" || *k < 2 || *runs < 3 {
		fmt.Fprintln(os.Stderr, "interleave: -kdelta PATH required, -k at least 2, -r at least 3")
		os.Exit(2)
	}
	value, err := os.ReadFile(*knobPath)
	if err != nil {
		fmt.Fprintf(os.Stderr, "interleave: %v\n", err)
		os.Exit(2)
	}
	// Both variants give the knob the value it has: nothing changes.
	setting := *knobPath + "=" + strings.TrimSpace(string(value))
	dir, err := os.MkdirTemp("", "interleave-")
	if err != nil {
		fmt.Fprintf(os.Stderr, "interleave: %v\n", err)
		os.Exit(1)
	}
	defer os.RemoveAll(dir)
	orders := []string{"interleaved", "blocks"}
	diffs := map[string][]float64{}
	claims := map[string]int{}
	for i := 0; i < *k; i++ {
		seq := orders
		if i%2 == 1 {
			seq = []string{orders[1], orders[0]}
		}
		for _, order := range seq {
			prefix := filepath.Join(dir, fmt.Sprintf("%s-%d", order, i))
			c, err := abOnce(*kd, order, setting, *spec, *metric, *runs, prefix)
			if err != nil {
				fmt.Fprintf(os.Stderr, "interleave: %s %d: %v\n", order, i+1, err)
				os.Exit(1)
			}
			diffs[order] = append(diffs[order], c.Change)
			if c.Verdict == stats.Improved || c.Verdict == stats.Regressed {
				claims[order]++
			}
			fmt.Fprintf(os.Stderr, "%-11s %d/%d: B vs A %+.2f%% %s\n", order, i+1, *k, 100*c.Change, c.Verdict)
		}
	}
	fmt.Printf("A/A knob test (%s set alike in A and B), %s %s, -r %d, %d experiments per order\n", setting, *spec, *metric, *runs, *k)
	sd := map[string]float64{}
	for _, order := range orders {
		d := diffs[order]
		var parts []string
		for _, x := range d {
			parts = append(parts, fmt.Sprintf("%+.2f%%", 100*x))
		}
		s := stats.Summarize(d)
		sd[order] = s.Stddev
		fmt.Printf("%-11s B-A differences: %s\n", order, strings.Join(parts, " "))
		fmt.Printf("%-11s spread: stddev %.2f%%, largest |difference| %.2f%%, mean %+.2f%%; %d of %d verdicts claimed a change\n",
			order, 100*s.Stddev, 100*maxAbs(d), 100*s.Mean, claims[order], len(d))
	}
	if sd["interleaved"] > 0 {
		fmt.Printf("blocks/interleaved spread ratio: %.2f (above 1: interleaving cancels drift that blocks let through)\n", sd["blocks"]/sd["interleaved"])
	}
}

// abOnce runs one A/A kdelta ab and compares B with A on metric.
func abOnce(kd, order, setting, spec, metric string, runs int, prefix string) (stats.Comparison, error) {
	cmd := exec.Command(kd, "ab", "--no-store", "--order", order, "-r", fmt.Sprint(runs), "-o", prefix,
		"--variant", "a:"+setting, "--variant", "b:"+setting, "--", spec)
	if out, err := cmd.CombinedOutput(); err != nil {
		return stats.Comparison{}, fmt.Errorf("%v: %s", err, lastLine(string(out)))
	}
	var vals [2][]float64
	for i, v := range []string{"a", "b"} {
		s, err := result.Load(prefix + "-" + v + ".json")
		if err != nil {
			return stats.Comparison{}, err
		}
		if len(s.Benchmarks) == 0 {
			return stats.Comparison{}, fmt.Errorf("%s: no benchmark", prefix)
		}
		vals[i] = s.Benchmarks[0].Values(metric)
		if len(vals[i]) == 0 {
			return stats.Comparison{}, fmt.Errorf("%s-%s.json: no values of %s", prefix, v, metric)
		}
	}
	return stats.Compare(vals[0], vals[1], stats.Options{}), nil
}

func maxAbs(xs []float64) float64 {
	m := 0.0
	for _, x := range xs {
		m = math.Max(m, math.Abs(x))
	}
	return m
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}
