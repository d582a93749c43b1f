package store

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkSave1000Sets inserts 1,000 result sets of 100 measured runs
// each (two metrics per run) into a fresh SQLite store; one op is the
// thousand sets. The target is under 10 s:
//
//	go test -run XXX -bench Save1000Sets -benchtime 1x ./internal/store/
func BenchmarkSave1000Sets(b *testing.B) {
	benchmarkSave(b, sqliteBackend, 1000)
}

// BenchmarkSave1000SetsPostgres is the same on PostgreSQL, when
// KDELTA_TEST_POSTGRES names one.
func BenchmarkSave1000SetsPostgres(b *testing.B) {
	benchmarkSave(b, pgBackend, 1000)
}

func benchmarkSave(b *testing.B, be backend, sets int) {
	ctx := context.Background()
	tmpl := synth{created: t0, labels: map[string]string{"kernel": "6.16", "host": "p10"}, workload: "kill",
		runs: 100, centre: 70281, cv: 0.01, seed: 1}.set()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		loc := be.newLoc(b)
		if !IsPostgres(loc) {
			loc = filepath.Join(b.TempDir(), fmt.Sprintf("bench%d.db", i))
		}
		st, err := Open(ctx, loc)
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		for j := 0; j < sets; j++ {
			s := *tmpl
			s.ID = fmt.Sprintf("20260701T120000-%06d", j)
			s.Created = t0.Add(time.Duration(j) * time.Minute)
			if err := st.Save(ctx, &s); err != nil {
				b.Fatal(err)
			}
		}
		b.StopTimer()
		st.Close()
		b.StartTimer()
	}
	b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/1000sets")
	b.ReportMetric(float64(b.N*sets*100)/b.Elapsed().Seconds(), "runs/s")
}
