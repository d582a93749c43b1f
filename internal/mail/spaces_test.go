package mail

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPlainSpaces: digit groups after a no-break, narrow no-break, thin,
// figure or en space are one number; any other such space is a plain
// one; an ASCII space is left as it is (it may be a column's edge).
func TestPlainSpaces(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"3\u202f080\u202f508 context-switches", "3080508 context-switches"},
		{"Enforcing 1\u2009234\u2009567 baseline", "Enforcing 1234567 baseline"},
		{"1\u2002255\u2002102 and 2\u2007000", "1255102 and 2000"},
		{"-1\u00a0234.5 ms", "-1234.5 ms"},
		{"9.75\u00a0ms", "9.75 ms"},
		{"1\u00a0234,5", "1234,5"}, // a decimal comma stays one, refused by the readers
		{"1\u00a02345", "1 2345"},  // not groups of three
		{"12345\u00a0678", "12345 678"},
		{"1 234 567", "1 234 567"},
		{"a\u00a0b\u202fc", "a b c"},
		{"6.1\u00a0\u00a0123\u00a0456", "6.1  123456"},
	} {
		if got := plainSpaces(c.in); got != c.want {
			t.Errorf("plainSpaces(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestOddSpaces reads a mail whose client grouped digits with no-break,
// narrow, thin and en spaces: each figure is read as one number; the
// table written with decimal commas is refused as the same table written
// without the odd spaces is.
func TestOddSpaces(t *testing.T) {
	a := analyzeFile(t, "spaces.txt")
	s := a.Sections[0]
	if len(s.Outputs) != 3 {
		t.Fatalf("%d outputs, want perf stat twice and the table", len(s.Outputs))
	}
	for i, want := range []float64{3080508, 2961004} {
		b := s.Outputs[i].Sets[0].Benchmarks[0]
		if got := b.Summaries["context-switches"].Mean; got != want {
			t.Errorf("output %d: context-switches %v, want %v", i+1, got, want)
		}
	}
	for i, want := range []float64{1234567, 1255102} {
		vs := s.Outputs[2].Sets[i].Benchmarks[0].Values("pipe-ops/sec")
		if len(vs) != 1 || vs[0] != want {
			t.Errorf("table row %d: %v, want %v", i+1, vs, want)
		}
	}
	// The same mail with the groups joined by hand: the decimal commas
	// are refused with the same words at the same line.
	data, err := os.ReadFile(filepath.Join("testdata", "spaces.txt"))
	if err != nil {
		t.Fatal(err)
	}
	plain := strings.NewReplacer("1\u00a0234,5", "1234,5", "1\u00a0198,25", "1198,25").Replace(string(data))
	b, err := Analyze("spaces.txt", []byte(plain))
	if err != nil {
		t.Fatal(err)
	}
	got, want := unread(a), unread(b)
	if len(got) != 1 || len(want) != 1 || got[0] != want[0] || got[0].Line != 31 {
		t.Errorf("unread %+v, want %+v at line 31", got, want)
	}
}
