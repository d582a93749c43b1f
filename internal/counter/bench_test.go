package counter

import "testing"

// BenchmarkSnapshot measures one snapshot of each monitor of this
// machine: the cost a run pays twice per monitor.
func BenchmarkSnapshot(b *testing.B) {
	for _, name := range MonitorNames {
		b.Run(name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				TakeSnapshot(name, "/")
			}
		})
	}
}

// BenchmarkDeltaStat measures the delta of two /proc/stat snapshots.
func BenchmarkDeltaStat(b *testing.B) {
	a := TakeSnapshot("stat", "/")
	c := TakeSnapshot("stat", "/")
	for i := 0; i < b.N; i++ {
		Delta(a, c)
	}
}
