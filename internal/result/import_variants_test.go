package result

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSaveSets imports seed mail 002's baseline run table and its bridge
// list together, as one reply holds them: the run table is the set outside
// any variant, saved to the file -o names, and each variant of the list to
// FILE-VARIANT.json.
func TestSaveSets(t *testing.T) {
	var in []byte
	for _, f := range []string{"seed-002-baseline.md", "seed-002-bridge-list.txt"} {
		data, err := os.ReadFile(filepath.Join(importDir, f))
		if err != nil {
			t.Fatal(err)
		}
		in = append(append(in, data...), '\n')
	}
	sets, err := ImportSets("reply.txt", in, "")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(variants(sets), ","); got != ",default,this-patch,this-patch-plus-wake_from_gp,wake_from_gp-only" {
		t.Fatalf("variants %q", got)
	}
	dir := t.TempDir()
	paths, err := SaveSets(filepath.Join(dir, "reply.json"), sets)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{"reply.json", "reply-default.json", "reply-this-patch.json", "reply-this-patch-plus-wake_from_gp.json", "reply-wake_from_gp-only.json"} {
		s, err := Load(paths[i])
		if filepath.Base(paths[i]) != want || err != nil || s.ID != sets[i].ID {
			t.Errorf("file %d: %s, %v; want %s holding set %s", i, paths[i], err, want, sets[i].ID)
		}
	}
	if b := sets[0].Benchmarks; len(b) != 1 || len(b[0].Runs) != 10 {
		t.Errorf("the run table: %d benchmarks", len(b))
	}
}
