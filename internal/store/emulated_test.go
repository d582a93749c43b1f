package store

import (
	"context"
	"testing"
	"time"

	"github.com/kdelta/kdelta/internal/compare"
)

// TestSamplesEmulated: Samples marks the samples of a set measured under
// TCG (its warnings say so, as kdelta vm records them) Emulated, and not
// those of a set that only carries the warning's words in a label.
func TestSamplesEmulated(t *testing.T) {
	const tcg = "timings emulated under TCG (qemu without KVM): compare them only with other TCG results; they do not measure the hardware"
	forEachBackend(t, func(t *testing.T, loc string) {
		ctx := context.Background()
		st := mustOpen(t, loc)
		native := synth{id: "native", created: t0, labels: map[string]string{"kernel": "6.15", "note": tcg}, workload: "kill", runs: 3, centre: 100, cv: 0.01, seed: 1}.set()
		emulated := synth{id: "emulated", created: t0.Add(time.Hour), labels: map[string]string{"kernel": "6.16"}, workload: "kill", runs: 3, centre: 100, cv: 0.01, seed: 2}.set()
		emulated.Warnings = []string{tcg}
		if !compare.Emulated(emulated) {
			t.Fatalf("compare.Emulated does not know kdelta vm's TCG warning %q", tcg)
		}
		if err := st.Save(ctx, native); err != nil {
			t.Fatal(err)
		}
		if err := st.Save(ctx, emulated); err != nil {
			t.Fatal(err)
		}
		ss, err := st.Samples(ctx, SampleQuery{Workload: "kill"})
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]bool{}
		for _, s := range ss {
			got[s.SetID] = s.Emulated
		}
		if len(got) != 2 || got["native"] || !got["emulated"] {
			t.Errorf("emulated by set %v, want native false, emulated true", got)
		}
	})
}
