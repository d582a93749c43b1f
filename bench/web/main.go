// Command web measures kdelta serve and the HTML report at scale. It fills
// a new SQLite store with -sets result sets over -builds kernel builds,
// serves it on a loopback port, and sends -requests GETs of each page from
// -clients concurrent clients (a bounded count: it stops by itself),
// printing the time of one request alone (the page computed from the
// store) and, under load, the median and p99 of each page's response time
// beside those of the server's smallest answer (a 404) under the same load,
// as the reference. Then it writes the HTML comparison of two sets of -samples
// per-operation latencies each and prints the time to compare and to write
// it, its size, and whether the page states the exact percentiles.
//
//	go run ./bench/web [-sets 10000] [-builds 1000] [-clients 50] [-requests 1000] [-samples 100000]
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/kdelta/kdelta/internal/compare"
	"github.com/kdelta/kdelta/internal/report"
	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/stats"
	"github.com/kdelta/kdelta/internal/store"
	"github.com/kdelta/kdelta/internal/web"
)

func main() {
	sets := flag.Int("sets", 10000, "result sets in the store")
	builds := flag.Int("builds", 1000, "kernel builds the sets spread over (the history's points)")
	clients := flag.Int("clients", 50, "concurrent clients")
	requests := flag.Int("requests", 1000, "requests per page")
	samples := flag.Int("samples", 100000, "per-operation samples of each set of the HTML report")
	flag.Parse()
	if *sets < *builds || *builds < 2 || *clients < 1 || *requests < *clients || *samples < 100 {
		fmt.Fprintln(os.Stderr, "web: need -sets >= -builds >= 2, -requests >= -clients >= 1, -samples >= 100")
		os.Exit(2)
	}
	if err := run(*sets, *builds, *clients, *requests, *samples); err != nil {
		fmt.Fprintln(os.Stderr, "web:", err)
		os.Exit(1)
	}
}

func run(sets, builds, clients, requests, samples int) error {
	dir, err := os.MkdirTemp("", "kdelta-bench-web-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(dir, "kdelta.db"))
	if err != nil {
		return err
	}
	defer st.Close()
	t0 := time.Now()
	if err := fill(ctx, st, sets, builds); err != nil {
		return err
	}
	fmt.Printf("store: %d sets over %d builds, 5 runs each, saved in %.1f s\n", sets, builds, time.Since(t0).Seconds())

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	sctx, stop := context.WithCancel(ctx)
	served := make(chan error, 1)
	go func() { served <- web.Serve(sctx, ln, st, web.Options{}) }()
	base := "http://" + ln.Addr().String()
	fmt.Printf("load: %d requests per page from %d concurrent loopback clients\n", requests, clients)
	var ref []time.Duration
	for _, pg := range []struct{ name, path string }{
		{"reference (404)", "/no-such-page"},
		{"results page", "/"},
		{"results API", "/api/sets?label=host%3Dbench"},
		{"history page", "/history?workload=pipe&by=kernel"},
	} {
		// One request alone first: the page computed from the store; the
		// load then measures the server as 50 readers meet it, answers
		// recomputed every web.CacheTTL.
		cold, _, err := load(base+pg.path, 1, 1)
		if err != nil {
			stop()
			return fmt.Errorf("%s: %w", pg.name, err)
		}
		ds, size, err := load(base+pg.path, clients, requests)
		if err != nil {
			stop()
			return fmt.Errorf("%s: %w", pg.name, err)
		}
		med, p99 := quantile(ds, 0.5), quantile(ds, 0.99)
		line := fmt.Sprintf("  %-16s alone %7.1f ms; loaded: median %7.1f ms  p99 %7.1f ms  (%d bytes)", pg.name, ms(cold[0]), ms(med), ms(p99), size)
		if ref == nil {
			ref = ds
		} else {
			line += fmt.Sprintf("  %.0fx the reference's median", float64(med)/float64(quantile(ref, 0.5)))
		}
		fmt.Println(line)
	}
	stop()
	if err := <-served; err != nil {
		return err
	}
	return htmlReport(samples)
}

// fill saves sets sets of one pipe benchmark, spread evenly over builds
// kernels whose latency steps up 20% halfway.
func fill(ctx context.Context, st store.Store, sets, builds int) error {
	rng := rand.New(rand.NewPCG(1, 2))
	day0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	m := result.Metric{Name: "latency", Unit: "us", Better: result.Lower}
	for i := range sets {
		build := i % builds
		centre := 10.0
		if build >= builds/2 {
			centre = 12
		}
		at := day0.Add(time.Duration(i) * time.Minute)
		b := &result.Benchmark{Workload: "pipe", Params: map[string]string{"mode": "thread"}, Metrics: []result.Metric{m}}
		for k := range 5 {
			b.Runs = append(b.Runs, &result.Run{Index: k, Start: at.Add(time.Duration(k) * time.Second), Status: result.StatusOK, Ops: 1e5,
				Values: map[string]float64{m.Name: centre * (1 + 0.02*rng.NormFloat64())}})
		}
		s := &result.Set{Schema: result.Schema, ID: fmt.Sprintf("%s-%012x", at.Format("20060102T150405"), i), Created: at, Tool: "bench web",
			Labels: map[string]string{"kernel": fmt.Sprintf("6.%d.%d", build/100, build%100), "host": "bench"}, Benchmarks: []*result.Benchmark{b}, Complete: true}
		if err := st.Save(ctx, s); err != nil {
			return err
		}
	}
	return nil
}

// load GETs u requests times from clients goroutines and returns each
// response time and the size of the last body.
func load(u string, clients, requests int) ([]time.Duration, int, error) {
	tr := &http.Transport{MaxIdleConnsPerHost: clients}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, Timeout: time.Minute}
	var (
		mu   sync.Mutex
		ds   []time.Duration
		size int
		fail error
		wg   sync.WaitGroup
	)
	next := make(chan struct{}, requests)
	for range requests {
		next <- struct{}{}
	}
	close(next)
	for range clients {
		wg.Go(func() {
			for range next {
				start := time.Now()
				resp, err := client.Get(u)
				var n int64
				if err == nil {
					var body []byte
					body, err = io.ReadAll(resp.Body)
					n = int64(len(body))
					resp.Body.Close()
					if err == nil && resp.StatusCode != 200 && resp.StatusCode != 404 {
						err = fmt.Errorf("%s: %s", resp.Status, bytes.TrimSpace(body))
					}
				}
				d := time.Since(start)
				mu.Lock()
				ds, size = append(ds, d), int(n)
				if err != nil && fail == nil {
					fail = err
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return ds, size, fail
}

// htmlReport compares two sets of samples per-operation latencies each (10
// runs of samples/10 operations) and writes the HTML page.
func htmlReport(samples int) error {
	rng := rand.New(rand.NewPCG(3, 4))
	mk := func(name string, centre float64) *result.Set {
		m := result.Metric{Name: "mean", Unit: "us", Better: result.Lower}
		b := &result.Benchmark{Workload: "rcu", Params: map[string]string{"calls": fmt.Sprint(samples / 10)}, Metrics: []result.Metric{m}}
		for k := range 10 {
			raw := make([]float64, samples/10)
			sum := 0.0
			for j := range raw {
				raw[j] = centre * math.Exp(0.3*rng.NormFloat64())
				sum += raw[j]
			}
			sorted := slices.Sorted(slices.Values(raw))
			b.Runs = append(b.Runs, &result.Run{Index: k, Status: result.StatusOK, Ops: float64(len(raw)), Values: map[string]float64{"mean": sum / float64(len(raw))},
				Latency: &result.Latency{Unit: "us", Count: len(raw), Mean: sum / float64(len(raw)), Min: sorted[0], Max: sorted[len(sorted)-1], Raw: raw}})
		}
		return &result.Set{Schema: result.Schema, ID: name, Labels: map[string]string{"kernel": name}, Benchmarks: []*result.Benchmark{b}}
	}
	a, b := mk("6.15", 9.75), mk("6.16", 6.04)
	t0 := time.Now()
	r, err := compare.Compare([]compare.Input{{Name: "kernel=6.15", Set: a}, {Name: "kernel=6.16", Set: b}}, compare.Options{})
	if err != nil {
		return err
	}
	tc := time.Since(t0)
	var page bytes.Buffer
	t1 := time.Now()
	if err := report.WriteCompareHTML(&page, r, report.HTMLOptions{}); err != nil {
		return err
	}
	tw := time.Since(t1)
	// The exact percentiles of all operations, as the page must state them.
	var all []float64
	for _, ru := range a.Benchmarks[0].Runs {
		all = append(all, ru.Latency.Raw...)
	}
	sort.Float64s(all)
	p99 := all[int(math.Ceil(0.99*float64(len(all))))-1]
	exact := strings.Contains(page.String(), fmt.Sprintf("%d ops, p50 %s, p99 %s", len(all), stats.Num(all[int(math.Ceil(0.5*float64(len(all))))-1]), stats.Num(p99)))
	fmt.Printf("html report: 2 sets of %d operations: compared in %.0f ms, written in %.0f ms, %.2f MB; exact p50/p99 of all operations stated: %v\n",
		samples, ms(tc), ms(tw), float64(page.Len())/1e6, exact)
	return nil
}

func quantile(ds []time.Duration, q float64) time.Duration {
	s := slices.Sorted(slices.Values(ds))
	return s[min(int(math.Ceil(q*float64(len(s))))-1, len(s)-1)]
}

func ms(d time.Duration) float64 { return float64(d) / 1e6 }
