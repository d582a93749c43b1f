package workload

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/kdelta/kdelta/internal/result"
)

// TestImportAs makes seed mail 002's baseline table an rcu benchmark: its
// mean, min and max take the rcu workload's own definitions.
func TestImportAs(t *testing.T) {
	path := filepath.Join("..", "result", "testdata", "import", "seed-002-baseline.md")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s, err := result.Import(path, data, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := ImportAs([]*result.Set{s}, "rcu"); err != nil {
		t.Fatal(err)
	}
	want := map[string]result.Metric{}
	for _, m := range (rcuLatency{}).Metrics() {
		want[m.Name] = m
	}
	b := s.Benchmarks[0]
	if b.Workload != "rcu" || len(b.Metrics) != 3 {
		t.Fatalf("benchmark %s with metrics %+v", b.Key(), b.Metrics)
	}
	for _, m := range b.Metrics {
		if !reflect.DeepEqual(m, want[m.Name]) {
			t.Errorf("metric %+v, want rcu's %+v", m, want[m.Name])
		}
	}
	if err := ImportAs([]*result.Set{s}, ""); err != nil || b.Workload != "rcu" {
		t.Errorf("no --as: %v, workload %s", err, b.Workload)
	}
	if err := ImportAs([]*result.Set{s}, "nope"); err == nil || !strings.Contains(err.Error(), "--as nope: no such workload (one of ") {
		t.Errorf("--as nope: %v", err)
	}
}
