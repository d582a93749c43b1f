package result

import "testing"

// TestParseClaim reads the changes mails write, with the header of their
// column: the figure as an improvement (positive is for the better) or a
// signed change of the value.
func TestParseClaim(t *testing.T) {
	for _, tc := range []struct {
		cell, header string
		pct          float64
		signed       bool
	}{
		{"31.61% faster", "Improvement (%)", 31.61, false},
		{"31.61", "Improvement (%)", 31.61, false},
		{"-5.2", "Improvement (%)", -5.2, false},
		{"(14% faster)", "", 14, false},
		{"12% slower", "", -12, false},
		{"+1.6%", "vs enforcing", 1.6, true},
		{"-32%", "", -32, true},
		{"10% lower", "", -10, true},
		{"3% more", "", 3, true},
	} {
		c, ok := parseClaim(tc.cell, tc.header)
		if !ok || c.pct != tc.pct || c.signed != tc.signed {
			t.Errorf("parseClaim(%q, %q) = %+v, %v; want %v signed %v", tc.cell, tc.header, c, ok, tc.pct, tc.signed)
		}
	}
	// A factor: 75.54 s → 51.662 s is 1.46x faster, and back 1.46x slower.
	for _, tc := range []struct {
		cell string
		a, b float64
	}{{"1.46x faster", 75.54, 51.662}, {"1.46× slower", 51.662, 75.54}} {
		c, ok := parseClaim(tc.cell, "")
		if !ok || !c.ratio || !c.agrees(tc.a, tc.b, Lower) || c.agrees(tc.b, tc.a, Lower) {
			t.Errorf("parseClaim(%q) = %+v, %v: want a factor the values give one way only", tc.cell, c, ok)
		}
	}
	for _, bad := range []string{"fast", "10.088 ms", "5", "2x", "-2x faster"} {
		if c, ok := parseClaim(bad, ""); ok {
			t.Errorf("parseClaim(%q) = %+v: not a change", bad, c)
		}
	}
	if isDerivedHeader("Throughput (higher is better)") || !isDerivedHeader("% faster") || !isDerivedHeader("vs enforcing") {
		t.Errorf("derived headers misread")
	}
}
