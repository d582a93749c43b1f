// Command funclatency measures what kdelta run --funclatency costs the
// runs it watches: syscall and bridge without it, with it on a function
// neither calls (ksys_sync: only that function is patched, so nothing
// should change), and with it on one each calls every operation
// (__task_pid_nr_ns, once per getppid; synchronize_rcu, about twice per
// bridge cycle). The three settings are interleaved, their order rotated
// from one round to the next; each prints the median, the change against
// none with its 95% interval, and, on the called function, the cost per
// traced call (the change of the time per operation over the calls per
// operation).
//
// The function_graph tracer is needed: on a kernel without it (this
// project's host) every round boots the Debian 6.1 test kernel in qemu,
// one boot per setting, and a boot's runs count as one sample (their
// median), since runs in one guest share its emulation's speed.
//
//	go run ./bench/funclatency -kdelta BIN [-rounds N] [-where auto|host|vm] [-kernel IMAGE -modules DIR]
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/kdelta/kdelta/internal/stats"
)

// A setting is one way of running: its --funclatency list, "" for none.
type setting struct{ name, funcs string }

var settings = []setting{
	{"none", ""},
	{"not called", "ksys_sync"},
	{"called", "__task_pid_nr_ns,synchronize_rcu"},
}

// A workload is what is timed, the metric compared, and the function of
// the "called" setting it calls.
type workload struct{ spec, metric, unit, called string }

var workloads = []workload{
	{"syscall:calls=200000", "ns/call", "ns", "__task_pid_nr_ns"},
	{"bridge:cycles=20", "ms/cycle", "ms", "synchronize_rcu"},
}

var (
	kd      = flag.String("kdelta", "", "path to the static kdelta binary (required)")
	rounds  = flag.Int("rounds", 5, "rounds; each runs every setting once, in a rotated order")
	where   = flag.String("where", "auto", "host, vm, or auto (host when its kernel has the function_graph tracer)")
	kernel  = flag.String("kernel", "", "kernel image for -where vm")
	modules = flag.String("modules", "", "its modules (for bridge) for -where vm")
	repeat  = flag.Int("r", 3, "runs per workload in a boot (-where vm)")
)

func main() {
	flag.Parse()
	if *kd == "" || *rounds < 3 {
		fail("-kdelta PATH required, -rounds at least 3")
	}
	if *where == "auto" {
		*where = "vm"
		if hostCan() {
			*where = "host"
		}
	}
	if *where == "vm" && *kernel == "" {
		fail("-where vm needs -kernel IMAGE (and -modules DIR for bridge)")
	}
	fmt.Printf("kdelta run --funclatency overhead, %s, %d rounds of %d settings interleaved\n", *where, *rounds, len(settings))
	// samples[setting][workload]: one per host run, or one per boot.
	samples := make([][][]float64, len(settings))
	calls := make([][]float64, len(workloads)) // called function's calls per op
	for i := range samples {
		samples[i] = make([][]float64, len(workloads))
	}
	for r := 0; r < *rounds; r++ {
		for k := range settings {
			si := (k + r) % len(settings)
			vals, perOp, err := measure(settings[si])
			if err != nil {
				fail(fmt.Sprintf("round %d, %s: %v", r+1, settings[si].name, err))
			}
			for w := range workloads {
				samples[si][w] = append(samples[si][w], vals[w])
				if settings[si].name == "called" {
					calls[w] = append(calls[w], perOp[w])
				}
			}
		}
	}
	for w, wl := range workloads {
		base := samples[0][w]
		fmt.Printf("\n%s (%s; one sample per %s)\n", wl.spec, wl.metric, map[string]string{"host": "run", "vm": "boot"}[*where])
		for si, st := range settings {
			xs := samples[si][w]
			med := stats.Summarize(xs).Median
			line := fmt.Sprintf("  %-10s median %10.4g %s", st.name, med, wl.unit)
			var c stats.Comparison
			if si > 0 {
				c = stats.Compare(base, xs, stats.Options{})
				line += fmt.Sprintf("  %+6.2f%% [%+.2f%%, %+.2f%%] %s", 100*c.Change, 100*c.CI[0], 100*c.CI[1], c.Verdict)
			}
			fmt.Println(line)
			if st.name == "called" {
				// The change and its interval, per operation, over the
				// traced calls each operation makes.
				perOp := stats.Summarize(calls[w]).Median
				ns := stats.Summarize(base).Median
				if wl.unit == "ms" {
					ns *= 1e6
				}
				fmt.Printf("  %-10s %.3g %s() calls per op: %.0f ns per traced call [%.0f, %.0f]\n", "", perOp, wl.called,
					ns*c.Change/perOp, ns*c.CI[0]/perOp, ns*c.CI[1]/perOp)
			}
		}
	}
	if *where == "vm" {
		fmt.Println("\nunder qemu (TCG unless KVM started the kernel): emulated times, not the hardware's")
	}
}

func fail(msg string) {
	fmt.Fprintln(os.Stderr, "funclatency:", msg)
	os.Exit(2)
}

// hostCan tells whether this kernel has the function_graph tracer.
func hostCan() bool {
	b, err := os.ReadFile("/sys/kernel/tracing/available_tracers")
	return err == nil && strings.Contains(" "+strings.TrimSpace(string(b))+" ", " function_graph ")
}

// measure runs both workloads under st once (host: one run each; vm: one
// boot, whose runs' median is its sample) and returns each workload's
// metric and its called function's calls per operation.
func measure(st setting) (vals, perOp []float64, err error) {
	dir, err := os.MkdirTemp("", "funclatency-bench-")
	if err != nil {
		return nil, nil, err
	}
	defer os.RemoveAll(dir)
	var specs []string
	for _, w := range workloads {
		specs = append(specs, w.spec)
	}
	run := append([]string{"run"}, specs...)
	if st.funcs != "" {
		run = append(run, "--funclatency", st.funcs)
	}
	var args []string
	var path string
	switch *where {
	case "host":
		path = filepath.Join(dir, "r.json")
		args = append(run, "-r", "1", "--warmup", "1", "--no-store", "-o", path)
	default:
		args = []string{"vm", "--kernel", *kernel, "--no-store", "-o", dir}
		if *modules != "" {
			args = append(args, "--modules", *modules)
		}
		args = append(append(args, "--"), append(run, "-r", fmt.Sprint(*repeat), "--warmup", "1")...)
	}
	cmd := exec.Command(*kd, args...)
	cmd.Env = append(os.Environ(), "KDELTA_STORE=")
	if out, err := cmd.CombinedOutput(); err != nil {
		return nil, nil, fmt.Errorf("%v: %s", err, out)
	}
	if path == "" {
		m, _ := filepath.Glob(filepath.Join(dir, "*.json"))
		if len(m) != 1 {
			return nil, nil, fmt.Errorf("result sets %v", m)
		}
		path = m[0]
	}
	return read(path)
}

// read takes the median of each workload's metric over its measured runs,
// and of the called function's calls per operation.
func read(path string) (vals, perOp []float64, err error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	var set struct {
		Benchmarks []struct {
			Workload string `json:"workload"`
			Skipped  string `json:"skipped"`
			Runs     []struct {
				Warmup bool               `json:"warmup"`
				Status string             `json:"status"`
				Reason string             `json:"reason"`
				Ops    float64            `json:"ops"`
				Values map[string]float64 `json:"values"`
			} `json:"runs"`
		} `json:"benchmarks"`
	}
	if err := json.Unmarshal(data, &set); err != nil {
		return nil, nil, err
	}
	for w, wl := range workloads {
		b := set.Benchmarks[w]
		if b.Skipped != "" {
			return nil, nil, fmt.Errorf("%s skipped: %s", wl.spec, b.Skipped)
		}
		var xs, cs []float64
		for _, r := range b.Runs {
			if r.Warmup {
				continue
			}
			if r.Status != "ok" {
				return nil, nil, fmt.Errorf("%s: %s: %s", wl.spec, r.Status, r.Reason)
			}
			xs = append(xs, r.Values[wl.metric])
			if n, ok := r.Values[wl.called+".calls"]; ok && r.Ops > 0 {
				cs = append(cs, n/r.Ops)
			}
		}
		vals = append(vals, stats.Summarize(xs).Median)
		perOp = append(perOp, stats.Summarize(cs).Median)
	}
	return vals, perOp, nil
}
