// Command overhead measures what counters and monitors cost a measured run:
// it runs each workload with them (kdelta's default) and without
// (--counters=none --monitor=none), interleaved pair by pair, and prints the
// ratio of the medians with the 95% interval of the change.
//
//	go run ./bench/overhead -kdelta /path/to/kdelta [-pairs 15] [-cpus LIST] [-fifo PRIO]
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/kdelta/kdelta/internal/stats"
)

func main() {
	kd := flag.String("kdelta", "", "path to the kdelta binary (required)")
	pairs := flag.Int("pairs", 15, "interleaved pairs per workload")
	flag.StringVar(&place, "cpus", "", "run both sides on these CPUs (--cpus)")
	flag.IntVar(&fifo, "fifo", 0, "run both sides under SCHED_FIFO at this priority (--fifo): steadier on a busy machine")
	flag.Parse()
	if *kd == "" || *pairs < 5 {
		fmt.Fprintln(os.Stderr, "overhead: -kdelta PATH required, -pairs at least 5")
		os.Exit(2)
	}
	cases := []struct{ spec, metric string }{
		{"syscall:calls=5000000", "ns/call"},
		{"messaging:groups=4,loops=200", "time"},
	}
	for _, c := range cases {
		var on, off []float64
		for i := 0; i < *pairs; i++ {
			order := []bool{true, false}
			if i%2 == 1 {
				order = []bool{false, true}
			}
			for _, counted := range order {
				v, err := run(*kd, c.spec, c.metric, counted)
				if err != nil {
					fmt.Fprintf(os.Stderr, "overhead: %s: %v\n", c.spec, err)
					os.Exit(1)
				}
				if counted {
					on = append(on, v)
				} else {
					off = append(off, v)
				}
			}
		}
		cmp := stats.Compare(off, on, stats.Options{})
		fmt.Printf("%-32s %-8s with/without counters+monitors: median ratio %.4f, change %+.2f%% [%+.2f%%, %+.2f%%] (95%%, %d pairs) %s\n",
			c.spec, c.metric, cmp.B.Median/cmp.A.Median, 100*cmp.Change, 100*cmp.CI[0], 100*cmp.CI[1], *pairs, cmp.Verdict)
	}
}

// place and fifo are the placement both sides of every pair run with.
var (
	place string
	fifo  int
)

func run(kd, spec, metric string, counted bool) (float64, error) {
	dir, err := os.MkdirTemp("", "overhead-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "r.json")
	args := []string{"run", spec, "-r", "1", "--warmup", "0", "-o", path}
	if !counted {
		args = append(args, "--counters=none", "--monitor=none")
	}
	if place != "" {
		args = append(args, "--cpus", place)
	}
	if fifo > 0 {
		args = append(args, "--fifo", fmt.Sprint(fifo))
	}
	if out, err := exec.Command(kd, args...).CombinedOutput(); err != nil {
		return 0, fmt.Errorf("%v: %s", err, out)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, err
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
		return 0, err
	}
	r := set.Benchmarks[0].Runs[0]
	if r.Status != "ok" {
		return 0, fmt.Errorf("%s: %s", r.Status, r.Reason)
	}
	return r.Values[metric], nil
}
