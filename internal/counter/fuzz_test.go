package counter

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// addSeeds adds the contents of files (those that exist) to f's corpus.
func addSeeds(f *testing.F, files ...string) {
	for _, p := range files {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
}

// The seeds are the real captures of the shared fixtures (read in place)
// and this package's synthetic samples; go test also runs the entries in
// testdata/fuzz/FuzzXxx.

func FuzzParseSchedstat(f *testing.F) {
	addSeeds(f,
		fixture("schedstat", "v15", "prometheus-procfs-fixture.2cpu.schedstat"),
		fixture("schedstat", "v15", "power8-pseries-IBM-8408-E8E.head-excerpt.schedstat"),
		fixture("schedstat", "v15", "power9-pseries-IBM-9008-22L.head-excerpt.schedstat"),
		filepath.Join("testdata", "schedstat-v16", "proc", "schedstat"),
		filepath.Join("testdata", "schedstat-v17", "proc", "schedstat"),
	)
	f.Add([]byte("version 17\ntimestamp 1\ncpu0 1 0 2 3 4 5 6 7 8\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		ss, err := ParseSchedstat(b)
		if err != nil {
			return
		}
		if ss.Version < 15 || ss.Version > 17 {
			t.Fatalf("accepted version %d", ss.Version)
		}
		for _, c := range ss.CPUs {
			if len(c.Fields) != 8 {
				t.Fatalf("cpu%d has %d fields", c.ID, len(c.Fields))
			}
			for _, d := range c.Domains {
				for _, it := range IdleTypes {
					if n := len(d.LB[it]); n != 8 && n != 11 {
						t.Fatalf("domain %d %s has %d fields", d.Index, it, n)
					}
				}
				if len(d.Fields) != 12 || !isCPUMask(d.Mask) {
					t.Fatalf("domain %+v", d)
				}
			}
		}
		for k := range ss.sample() {
			if k == "" || strings.ContainsAny(k, " \n") {
				t.Fatalf("key %q", k)
			}
		}
	})
}

func FuzzParseProcStat(f *testing.F) {
	addSeeds(f, filepath.Join(procfsFixture, "proc", "stat"), "/proc/stat")
	f.Add([]byte("cpu 1 2 3 4\ncpu0 1 2 3 4 5 6 7 8 9 10 11\nintr 5 1 2\nctxt 3\nsoftirq 4 1 1 1 1 1 1 1 1 1 1 1\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		ps, err := ParseProcStat(b)
		if err != nil {
			return
		}
		if len(ps.Total) < 4 {
			t.Fatalf("accepted without a cpu line: %+v", ps)
		}
		c, g := ps.sample()
		if _, ok := c["ctxt"]; !ok || len(g) != 2 {
			t.Fatalf("sample %v %v", c, g)
		}
	})
}

func FuzzParseSoftirqs(f *testing.F) {
	addSeeds(f, filepath.Join(procfsFixture, "proc", "softirqs"), "/proc/softirqs")
	f.Add([]byte("  CPU0 CPU2\nRCU: 1 2\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := ParseSoftirqs(b)
		if err != nil {
			return
		}
		for _, k := range s.Kinds {
			if len(s.Counts[k]) != len(s.CPUs) {
				t.Fatalf("%s: %d counts for %d CPUs", k, len(s.Counts[k]), len(s.CPUs))
			}
		}
		s.sample()
	})
}

func FuzzParseInterrupts(f *testing.F) {
	addSeeds(f, filepath.Join(procfsFixture, "proc", "interrupts"), "/proc/interrupts")
	f.Add([]byte("  CPU0 CPU1\n 0: 1 2 IO-APIC 2-edge timer\nERR: 0\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		in, err := ParseInterrupts(b)
		if err != nil {
			return
		}
		for _, l := range in.Lines {
			if len(l.Counts) == 0 || len(l.Counts) > len(in.CPUs) || l.Name == "" {
				t.Fatalf("line %+v with %d CPUs", l, len(in.CPUs))
			}
		}
		if _, ok := in.sample()["total"]; !ok {
			t.Fatal("no total")
		}
	})
}

func FuzzParseEvents(f *testing.F) {
	root := tracefsTree(f, "sys/kernel/tracing")
	for _, s := range []string{
		DefaultEventList, "cs,cycles:u", "L1-dcache-load-misses,LLC-loads,dTLB-store-misses",
		"raw_syscalls:sys_enter:k", "sched:sched_switch", "r1a8", "branch-load-misses:uk",
		"L1-dcache-speculative-read-miss", "{cycles}", "a:b:c", "x:",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, list string) {
		evs, err := ParseEventsAt(root, list)
		if err != nil {
			return
		}
		if len(evs) == 0 {
			t.Fatal("no events and no error")
		}
		for _, ev := range evs {
			if ev.Name == "" || strings.Contains(ev.Name, ",") {
				t.Fatalf("event name %q", ev.Name)
			}
			if ev.ExcludeUser && ev.ExcludeKernel && ev.ExcludeHV {
				t.Fatalf("%q excludes everything", ev.Name)
			}
		}
	})
}
