package history

import (
	"math/rand/v2"
	"slices"
	"testing"
)

func TestCompareKernelVersions(t *testing.T) {
	// Each list is in ascending order; every pair is checked both ways.
	orders := [][]string{
		{"6.15-rc6", "6.15", "6.15.1", "6.16-rc1", "6.16"},
		{"6.9", "6.10-rc1", "6.10", "6.15", "7.0-rc4", "7.0", "7.1", "7.2-rc4"},
		{"6.16-rc1", "6.16-rc2", "6.16-rc10", "6.16"},
		// Debian and Fedora spellings of a release candidate.
		{"6.16~rc1", "6.16~rc7", "6.16", "6.16.1"},
		{"6.15.0-0.rc6.51.eln148", "6.15.0-0.rc7.1.eln148", "6.15.0-1.eln149", "6.16.0-0.rc1.eln150", "6.16.0-65.eln150"},
		// Distribution suffixes order after the version, numbers as numbers.
		{"6.16-eln99", "6.16-eln150", "6.16-eln1000"},
		{"6.16.0-200.fc43.x86_64", "6.16.0-201.fc43.x86_64", "6.16.1-100.fc43.x86_64", "6.17.0-0.rc1.fc44.x86_64", "6.17.0-1.fc44.x86_64"},
		{"6.16.fc43", "6.16.fc44", "6.16.1.fc43"},
		{"6.18.0-rc1+", "6.18.0", "6.18.0+", "6.18.0-dirty"},
		// A leading v is tolerated; names that are not versions go last.
		{"v6.1", "6.2", "v6.3", "baseline", "patched", "patched2", "patched10"},
		{"5.15.0-generic", "5.15.10", "5.15.100"},
	}
	for _, order := range orders {
		for i := range order {
			for j := range order {
				want := 0
				if i < j {
					want = -1
				} else if i > j {
					want = 1
				}
				if got := CompareKernelVersions(order[i], order[j]); got != want {
					t.Errorf("CompareKernelVersions(%q, %q) = %d, want %d", order[i], order[j], got, want)
				}
			}
		}
		shuffled := slices.Clone(order)
		rand.New(rand.NewPCG(1, 2)).Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		slices.SortFunc(shuffled, CompareKernelVersions)
		if !slices.Equal(shuffled, order) {
			t.Errorf("sorted %v, want %v", shuffled, order)
		}
	}
	// Equal releases written differently are still ordered, never equal.
	if c := CompareKernelVersions("6.15", "6.15.0"); c != -1 {
		t.Errorf(`CompareKernelVersions("6.15", "6.15.0") = %d, want -1 (plain string tie-break)`, c)
	}
}

// FuzzCompareKernelVersions checks that the order is a total order on any
// input: reflexive, antisymmetric, transitive, and 0 only for equal strings.
func FuzzCompareKernelVersions(f *testing.F) {
	seeds := [][3]string{
		{"6.15-rc6", "6.15", "6.15.1"},
		{"6.16.0-0.rc1.fc43", "6.16.0-65.eln150", "6.16~rc2"},
		{"v6.1", "baseline", "6.1.0"},
		{"6.16.fc43", "6.16-eln99", "6.16.00"},
		{"", "0", "00"},
		{"1.a2", "1.a10", "1.ab"},
	}
	for _, s := range seeds {
		f.Add(s[0], s[1], s[2])
	}
	f.Fuzz(func(t *testing.T, a, b, c string) {
		ab, ba := CompareKernelVersions(a, b), CompareKernelVersions(b, a)
		if ab != -ba || ab < -1 || ab > 1 {
			t.Fatalf("cmp(%q,%q)=%d but cmp(%q,%q)=%d", a, b, ab, b, a, ba)
		}
		if (ab == 0) != (a == b) {
			t.Fatalf("cmp(%q,%q)=%d", a, b, ab)
		}
		bc, ac := CompareKernelVersions(b, c), CompareKernelVersions(a, c)
		if ab <= 0 && bc <= 0 && ac > 0 {
			t.Fatalf("not transitive: %q <= %q <= %q but cmp(a,c)=%d", a, b, c, ac)
		}
		if ab >= 0 && bc >= 0 && ac < 0 {
			t.Fatalf("not transitive: %q >= %q >= %q but cmp(a,c)=%d", a, b, c, ac)
		}
	})
}
