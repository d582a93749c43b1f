package vm

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/kdelta/kdelta/internal/compare"
	"github.com/kdelta/kdelta/internal/result"
)

// TestFileName checks the names of the variants' result files.
func TestFileName(t *testing.T) {
	labels := func(kv ...string) *result.Set {
		s := &result.Set{Labels: map[string]string{}}
		for i := 0; i < len(kv); i += 2 {
			s.Labels[kv[i]] = kv[i+1]
		}
		return s
	}
	tests := []struct {
		s    *result.Set
		want string
	}{
		{labels("variant", "A", "kernel", "6.1.0-57-cloud-amd64"), "A-6.1.0-57-cloud-amd64.json"},
		{labels("variant", "B", "kernel", "6.1.0", "cmdline", "preempt=full mitigations=off"), "B-6.1.0-preempt=full_mitigations=off.json"},
		{labels("variant", "C", "kernel", "6.1", "cmdline", "a/b,c"), "C-6.1-a_b_c.json"},
		{labels("variant", "D", "kernel", "6.1", "cmdline", strings.Repeat("x", 200)), "D-6.1-" + strings.Repeat("x", 114) + ".json"},
	}
	for _, tt := range tests {
		if got := fileName(tt.s); got != tt.want {
			t.Errorf("fileName(%v) = %q, want %q", tt.s.Labels, got, tt.want)
		}
	}
}

// TestSaveAndCompare saves two variants' sets and compares them, the
// first the baseline.
func TestSaveAndCompare(t *testing.T) {
	dir := t.TempDir()
	var sets []*result.Set
	for i, v := range []string{"A", "B"} {
		s := bootSet(true, &result.Run{Index: 0, Status: result.StatusOK, Values: map[string]float64{"ns/call": 100 + float64(i)}})
		s.ID = "id-" + v
		s.Labels["variant"], s.Labels["cmdline"] = v, "preempt="+v
		path, err := Save(dir, s)
		if err != nil || path != filepath.Join(dir, v+"-6.1.0-preempt="+v+".json") {
			t.Fatalf("Save: %q, %v", path, err)
		}
		back, err := result.Load(path)
		if err != nil || back.ID != s.ID {
			t.Fatalf("the saved set: %v, %v", back, err)
		}
		sets = append(sets, s)
	}
	if r, err := Compare(sets[:1], compare.Options{}); r != nil || err != nil {
		t.Errorf("Compare of one set: %v, %v; want nothing", r, err)
	}
	r, err := Compare(sets, compare.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Inputs) != 2 || !strings.Contains(r.Inputs[0].Name, "variant=A") || !strings.Contains(r.Inputs[1].Name, "variant=B") {
		t.Errorf("compared %+v, want A then B", r.Inputs)
	}
}
