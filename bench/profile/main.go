// Command profile measures what perf record costs a measured run, which is
// why kdelta keeps profiled runs out of its statistics: it runs each
// workload with perf record attached at the ready handshake (as kdelta run
// --profile does) and without, interleaved pair by pair with the order
// alternating, and prints the median ratio and the 95% interval of the
// change (internal/stats Compare: Hodges-Lehmann with Mann-Whitney U).
//
//	go run ./bench/profile [-pairs 15] [-g] [-freq 0]
//
// The binary re-executes itself as the measured child, as kdelta does.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/kdelta/kdelta/internal/profile"
	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/runner"
	"github.com/kdelta/kdelta/internal/stats"
	"github.com/kdelta/kdelta/internal/workload"
)

func main() {
	if code, ok := runner.Hidden(os.Args[1:]); ok {
		os.Exit(code)
	}
	pairs := flag.Int("pairs", 15, "interleaved pairs per workload")
	callGraph := flag.Bool("g", false, "record call graphs (perf record -g)")
	freq := flag.Int("freq", 0, "sampling frequency in Hz; 0: perf's default")
	flag.Parse()
	if *pairs < 5 {
		fmt.Fprintln(os.Stderr, "profile: -pairs must be at least 5")
		os.Exit(2)
	}
	o := profile.Options{CallGraph: *callGraph, Freq: *freq}
	if err := profile.Check(o); err != nil {
		fmt.Fprintf(os.Stderr, "profile: %v\n", err)
		os.Exit(1)
	}
	cases := []struct{ spec, metric string }{
		{"syscall:calls=5000000", "ns/call"},
		{"messaging:groups=4,loops=200", "time"},
	}
	event := ""
	for _, c := range cases {
		sp, err := workload.ParseSpec(c.spec)
		if err != nil {
			fmt.Fprintf(os.Stderr, "profile: %v\n", err)
			os.Exit(2)
		}
		var with, without []float64
		for i := 0; i < *pairs; i++ {
			order := []bool{true, false}
			if i%2 == 1 {
				order = []bool{false, true}
			}
			for _, profiled := range order {
				v, ev, err := once(sp, c.metric, profiled, o)
				if err != nil {
					fmt.Fprintf(os.Stderr, "profile: %s: %v\n", c.spec, err)
					os.Exit(1)
				}
				if profiled {
					with = append(with, v)
					event = ev
				} else {
					without = append(without, v)
				}
			}
		}
		cmp := stats.Compare(without, with, stats.Options{})
		fmt.Printf("%-30s %-8s with/without perf record: median ratio %.4f, change %+.2f%% [%+.2f%%, %+.2f%%] (95%%, %d pairs) %s\n",
			c.spec, c.metric, cmp.B.Median/cmp.A.Median, 100*cmp.Change, 100*cmp.CI[0], 100*cmp.CI[1], *pairs, cmp.Verdict)
	}
	g := ""
	if *callGraph {
		g = " -g"
	}
	fmt.Printf("perf record -e %s%s, sampling the run's task tree from its ready handshake\n", event, g)
}

// once runs one measured run of sp, with perf record attached or not, and
// returns its metric and the event perf sampled.
func once(sp workload.Spec, metric string, profiled bool, o profile.Options) (float64, string, error) {
	opt := &runner.Options{Repeat: 1}
	var got result.Profile
	if profiled {
		opt.OnReady = profile.Hook(o, func(p result.Profile) { got = p })
	}
	set, err := runner.Run(context.Background(), []workload.Spec{sp}, opt)
	if err != nil {
		return 0, "", err
	}
	r := set.Benchmarks[0].Runs[0]
	if r.Status != result.StatusOK {
		return 0, "", fmt.Errorf("%s: %s", r.Status, r.Reason)
	}
	if profiled && got.Unavailable != "" {
		return 0, "", fmt.Errorf("profile: %s", got.Unavailable)
	}
	v, ok := r.Values[metric]
	if !ok {
		return 0, "", fmt.Errorf("no metric %s", metric)
	}
	return v, got.Event, nil
}
