package result_test

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/kdelta/kdelta/internal/result"
)

// TestParseLabels checks --label values: k=v each, the value may hold
// "=" or be empty, and a value without a key is refused by name.
func TestParseLabels(t *testing.T) {
	got, err := result.ParseLabels([]string{"kernel=6.1", "cmdline=a=b", "empty="})
	want := map[string]string{"kernel": "6.1", "cmdline": "a=b", "empty": ""}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("ParseLabels = %v, %v; want %v", got, err, want)
	}
	if got, err := result.ParseLabels(nil); err != nil || got == nil || len(got) != 0 {
		t.Errorf("ParseLabels(nil) = %v, %v; want an empty map", got, err)
	}
	for _, bad := range []string{"kernel", "=6.1"} {
		if _, err := result.ParseLabels([]string{bad}); err == nil || err.Error() != `--label: "`+bad+`" is not key=value` {
			t.Errorf("ParseLabels(%q): %v", bad, err)
		}
	}
}

// TestImportFiles checks that files imported together, without variants,
// make one set: the first file's, then the second's benchmarks after its
// own, each as Import reads it alone; a file that does not read names
// itself.
func TestImportFiles(t *testing.T) {
	a, b := "testdata/import/hackbench.txt", "testdata/import/perf-bench-sched-pipe.txt"
	var alone []*result.Set
	for _, p := range []string{a, b} {
		s, err := result.ImportFiles(context.Background(), []string{p}, "")
		if err != nil || len(s) != 1 {
			t.Fatalf("%s: %d sets, %v", p, len(s), err)
		}
		alone = append(alone, s[0])
	}
	sets, err := result.ImportFiles(context.Background(), []string{a, b}, "")
	if err != nil || len(sets) != 1 {
		t.Fatalf("%d sets, %v; want one", len(sets), err)
	}
	got := sets[0]
	want := append(append([]*result.Benchmark(nil), alone[0].Benchmarks...), alone[1].Benchmarks...)
	if len(got.Benchmarks) != len(want) || len(want) < 2 {
		t.Fatalf("%d benchmarks, want %d (and two files' worth)", len(got.Benchmarks), len(want))
	}
	for i := range want {
		if got.Benchmarks[i].Workload != want[i].Workload || !reflect.DeepEqual(got.Benchmarks[i].Runs, want[i].Runs) {
			t.Errorf("benchmark %d: %s, want %s as imported alone", i, got.Benchmarks[i].Workload, want[i].Workload)
		}
	}
	if _, err := result.ImportFiles(context.Background(), []string{a, "testdata/import/no-such-file"}, ""); err == nil || !strings.Contains(err.Error(), "no-such-file") {
		t.Errorf("a missing second file: %v", err)
	}
}
