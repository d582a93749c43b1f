package report

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/kdelta/kdelta/internal/counter"
	"github.com/kdelta/kdelta/internal/golden"
	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/stats"
	"github.com/kdelta/kdelta/internal/testenv"
)

// schedstatBases are a /proc/schedstat of each version: the real v15
// capture of the prometheus/procfs fixtures (shared, read in place), and
// counter's synthetic v16 and v17 files (internal/counter/testdata, whose
// README says how they were made).
var schedstatBases = []struct {
	name, path string
}{
	{"v15", filepath.Join("..", "..", "..", "shared", "fixtures", "schedstat", "v15", "prometheus-procfs-fixture.2cpu.schedstat")},
	{"v16", filepath.Join("..", "counter", "testdata", "schedstat-v16", "proc", "schedstat")},
	{"v17", filepath.Join("..", "counter", "testdata", "schedstat-v17", "proc", "schedstat")},
}

// later returns base with every number of its cpu and domain lines grown
// by (column + line) mod 5, some by nothing, and the timestamp by 250
// jiffies: the file a window's second snapshot reads.
func later(base []byte) []byte {
	var out []string
	for n, line := range strings.Split(string(base), "\n") {
		f := strings.Fields(line)
		if len(f) > 0 && f[0] == "timestamp" {
			v, _ := strconv.ParseUint(f[1], 10, 64)
			line = "timestamp " + strconv.FormatUint(v+250, 10)
		} else if len(f) > 0 && (strings.HasPrefix(f[0], "cpu") || strings.HasPrefix(f[0], "domain")) {
			// The numbers: after "cpuN", but its historic 0; after
			// "domainN [NAME] MASK", the last 36 or 45 tokens.
			first, skip := 1, 2
			if strings.HasPrefix(f[0], "domain") {
				first, skip = len(f)-36, -1
				if len(f) >= 1+1+45 {
					first = len(f) - 45
				}
			}
			for i := first; i < len(f); i++ {
				v, err := strconv.ParseUint(f[i], 10, 64)
				if err != nil {
					panic(fmt.Sprintf("line %d: %q is not a number", n+1, f[i]))
				}
				if i != skip {
					f[i] = strconv.FormatUint(v+uint64((i+n)%5), 10)
				}
			}
			line = strings.Join(f, " ")
		}
		out = append(out, line)
	}
	return []byte(strings.Join(out, "\n"))
}

// window is the Monitor of a window between base and later(base), taken
// by counter from two trees as a run takes it.
func window(t *testing.T, base []byte) (m result.Monitor, a, b *counter.Schedstat) {
	t.Helper()
	var snaps []counter.Snapshot
	var parsed []*counter.Schedstat
	for _, text := range [][]byte{base, later(base)} {
		root := t.TempDir()
		os.MkdirAll(filepath.Join(root, "proc", "sys", "kernel"), 0o755)
		os.WriteFile(filepath.Join(root, "proc", "sys", "kernel", "sched_schedstats"), []byte("1\n"), 0o644)
		if err := os.WriteFile(filepath.Join(root, "proc", "schedstat"), text, 0o644); err != nil {
			t.Fatal(err)
		}
		snaps = append(snaps, counter.TakeSnapshot("schedstat", root))
		ss, err := counter.ParseSchedstat(text)
		if err != nil {
			t.Fatal(err)
		}
		parsed = append(parsed, ss)
	}
	m = counter.Delta(snaps[0], snaps[1])
	if m.Unavailable != "" {
		t.Fatal(m.Unavailable)
	}
	m.Window = "@20s+5s"
	return m, parsed[0], parsed[1]
}

// TestWriteSchedstat lays a window's change out as /proc/schedstat and
// reads the lines back with the kernel format's parser: every counter of
// every CPU and domain must be the later file's minus the earlier one's,
// every span and name the file's, and the totals line the sum over the
// CPUs. Only those lines may pass 100 columns.
func TestWriteSchedstat(t *testing.T) {
	for _, base := range schedstatBases {
		t.Run(base.name, func(t *testing.T) {
			text, err := os.ReadFile(base.path)
			if err != nil {
				testenv.Skipf(t, "fixture missing: %v", err)
			}
			m, a, b := window(t, text)
			var out bytes.Buffer
			WriteSchedstat(&out, "schedstat@20s+5s, run 1", m)
			if base.name == "v17" {
				golden.Check(t, "schedstat-v17.golden", out.Bytes())
			}
			// The file's lines are those from "version" to the totals.
			var file []string
			in := false
			for _, line := range strings.Split(out.String(), "\n") {
				body, indented := strings.CutPrefix(line, "    ")
				switch {
				case indented && strings.HasPrefix(body, "version "):
					in = true
				case strings.HasPrefix(body, "all CPUs: "):
					in = false
				}
				if in {
					file = append(file, body)
				} else if len([]rune(line)) > 100 {
					t.Errorf("line of %d columns: %q", len([]rune(line)), line)
				}
			}
			d, err := counter.ParseSchedstat([]byte(strings.Join(file, "\n")))
			if err != nil {
				t.Fatalf("the laid-out change does not parse as /proc/schedstat: %v\n%s", err, out.String())
			}
			if d.Version != a.Version || d.Timestamp != b.Timestamp-a.Timestamp || len(d.CPUs) != len(a.CPUs) {
				t.Fatalf("version %d timestamp %d, %d CPUs; want %d, %d, %d", d.Version, d.Timestamp, len(d.CPUs), a.Version, b.Timestamp-a.Timestamp, len(a.CPUs))
			}
			var sched float64
			for i, c := range d.CPUs {
				ca, cb := a.CPUs[i], b.CPUs[i]
				if c.ID != ca.ID || len(c.Domains) != len(ca.Domains) {
					t.Fatalf("cpu %d with %d domains, want cpu %d with %d", c.ID, len(c.Domains), ca.ID, len(ca.Domains))
				}
				for k, v := range c.Fields {
					if v != cb.Fields[k]-ca.Fields[k] {
						t.Errorf("cpu%d %s = %d, want %d", c.ID, k, v, cb.Fields[k]-ca.Fields[k])
					}
				}
				sched += float64(c.Fields["sched_count"])
				for j, dom := range c.Domains {
					da, db := ca.Domains[j], cb.Domains[j]
					if dom.Index != da.Index || dom.Mask != da.Mask || dom.Name != da.Name {
						t.Errorf("cpu%d domain%d %s %s, want domain%d %s %s", c.ID, dom.Index, dom.Name, dom.Mask, da.Index, da.Name, da.Mask)
					}
					for it, fields := range dom.LB {
						for k, v := range fields {
							if want := db.LB[it][k] - da.LB[it][k]; v != want {
								t.Errorf("cpu%d domain%d %s.%s = %d, want %d", c.ID, dom.Index, k, it, v, want)
							}
						}
					}
					for k, v := range dom.Fields {
						if want := db.Fields[k] - da.Fields[k]; v != want {
							t.Errorf("cpu%d domain%d %s = %d, want %d", c.ID, dom.Index, k, v, want)
						}
					}
				}
			}
			if want := "all CPUs: sched_count " + stats.WholeNum(sched) + ","; !strings.Contains(out.String(), want) {
				t.Errorf("no %q in:\n%s", want, out.String())
			}
		})
	}
}

// TestShowSchedstatWindow: show lays out a run's schedstat window and says
// why one was not taken, and leaves the whole-run schedstat of kdelta
// run's default to its one-line summary; kdelta stat's lines lay out any
// schedstat monitor.
func TestShowSchedstatWindow(t *testing.T) {
	text, err := os.ReadFile(schedstatBases[2].path)
	if err != nil {
		t.Fatal(err)
	}
	m, _, _ := window(t, text)
	whole := m
	whole.Window = ""
	missing := result.Monitor{Name: "schedstat", Window: "@1s+1s", Unavailable: "this kernel is built without CONFIG_SCHEDSTATS (no /proc/schedstat)"}
	b := &result.Benchmark{Workload: "stat", Params: map[string]string{"command": "sleep 30"},
		Metrics: []result.Metric{{Name: "elapsed", Unit: "s"}}}
	for i, mons := range [][]result.Monitor{{m, whole}, {missing}} {
		b.Runs = append(b.Runs, &result.Run{Index: i, Status: result.StatusOK, Values: map[string]float64{"elapsed": 30}, Monitors: mons})
	}
	s := &result.Set{Benchmarks: []*result.Benchmark{b}, Complete: true}
	var show, perf bytes.Buffer
	Show(&show, s, ShowOptions{})
	PerfStat(&perf, s)
	for name, tc := range map[string]struct {
		out         string
		wantLayouts int
	}{"show": {show.String(), 1}, "perf stat": {perf.String(), 2}} {
		if n := strings.Count(tc.out, "laid out as /proc/schedstat version 17"); n != tc.wantLayouts {
			t.Errorf("%s: %d schedstat layouts, want %d:\n%s", name, n, tc.wantLayouts, tc.out)
		}
		if !strings.Contains(tc.out, "  schedstat@20s+5s, run 1: ") {
			t.Errorf("%s: the window is not named with its run:\n%s", name, tc.out)
		}
		// Run 2 had no window: the cause, once, on one line.
		if n := strings.Count(tc.out, "CONFIG_SCHEDSTATS"); n != 1 || !strings.Contains(tc.out, "\n  monitor schedstat@1s+1s: this kernel is built without CONFIG_SCHEDSTATS (no /proc/schedstat)\n") {
			t.Errorf("%s: the cause is not said once on its line:\n%s", name, tc.out)
		}
	}
}
