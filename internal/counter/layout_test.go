package counter

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// schedstatFiles are a file of each version: the real v15 capture of the
// prometheus/procfs fixtures (shared), and the synthetic v16 and v17 files
// of testdata (see its README), whose domain numbers encode their column.
var schedstatFiles = map[int]string{
	15: fixture("schedstat", "v15", "prometheus-procfs-fixture.2cpu.schedstat"),
	16: filepath.Join("testdata", "schedstat-v16", "proc", "schedstat"),
	17: filepath.Join("testdata", "schedstat-v17", "proc", "schedstat"),
}

// TestSchedstatLayout checks SchedstatLayout against the files' own
// text: the keys of each version, looked up in the snapshot of the parsed
// file, give back every number of every cpu and domain line in the order
// the file has them, and the Text keeps each domain's span and name.
func TestSchedstatLayout(t *testing.T) {
	for version, path := range schedstatFiles {
		b := readFile(t, path)
		ss, err := ParseSchedstat(b)
		if err != nil {
			t.Fatal(err)
		}
		cpuKeys, domainKeys, ok := SchedstatLayout(version)
		if !ok {
			t.Fatalf("version %d: no layout", version)
		}
		values, text := ss.sample(), ss.text()
		if text["version"] != strconv.Itoa(version) {
			t.Errorf("%s: text version %q", path, text["version"])
		}
		cpu, lines := "", 0
		for _, line := range strings.Split(string(b), "\n") {
			f := strings.Fields(line)
			if len(f) == 0 || f[0] == "version" || f[0] == "timestamp" {
				continue
			}
			lines++
			prefix, keys := "", cpuKeys
			if strings.HasPrefix(f[0], "cpu") {
				cpu = f[0]
				prefix, f = cpu+".", f[1:]
			} else {
				prefix = cpu + "." + f[0] + "."
				if version == 17 {
					if text[prefix+"name"] != f[1] {
						t.Errorf("%s: %sname = %q, want %q", path, prefix, text[prefix+"name"], f[1])
					}
					f = f[1:]
				}
				if text[prefix+"span"] != f[1] {
					t.Errorf("%s: %sspan = %q, want %q", path, prefix, text[prefix+"span"], f[1])
				}
				keys, f = domainKeys, f[2:]
			}
			if len(f) != len(keys) {
				t.Fatalf("%s: %q: %d numbers, layout has %d", path, line, len(f), len(keys))
			}
			for i, k := range keys {
				want, _ := strconv.ParseFloat(f[i], 64)
				got := 0.0
				if k != "" {
					got = values[prefix+k]
				}
				if got != want {
					t.Errorf("%s: number %d of %q is %.0f, the layout's key %q reads %.0f", path, i+1, line, want, prefix+k, got)
				}
			}
		}
		if lines == 0 {
			t.Errorf("%s: no cpu or domain lines", path)
		}
	}
	if _, _, ok := SchedstatLayout(14); ok {
		t.Error("a layout for version 14")
	}
}

// TestDeltaText: a delta keeps the later snapshot's text.
func TestDeltaText(t *testing.T) {
	a := TakeSnapshot("schedstat", filepath.Join("testdata", "schedstat-v17"))
	b := TakeSnapshot("schedstat", filepath.Join("testdata", "schedstat-v17-later"))
	m := Delta(a, b)
	for k, want := range map[string]string{"version": "17", "cpu2.domain0.span": "0000000c", "cpu2.domain0.name": "SMT", "cpu3.domain1.name": "MC"} {
		if m.Text[k] != want {
			t.Errorf("text %s = %q, want %q", k, m.Text[k], want)
		}
	}
}
