package golden

import "testing"

func TestSameButRounding(t *testing.T) {
	for _, c := range []struct {
		want, got string
		same      bool
	}{
		{`"p": 0.712806359524,`, `"p": 0.712806359256,`, true},
		{"a,-0.280578292961,0.2525402558", "a,-0.280578292993,0.2525402559", true},
		{"1.5e-07 x", "1.50000000001e-07 x", true},
		{"0.71", "0.72", false},
		{"p 0.7128063595", "q 0.7128063595", false},
		{"5.00% slower", "5.01% slower", false},
		{"1 2", "1 2 3", false},
		{"12345678901", "12345678902", true},
		{"10 runs", "11 runs", false},
	} {
		if got := sameButRounding(c.want, c.got); got != c.same {
			t.Errorf("sameButRounding(%q, %q) = %v, want %v", c.want, c.got, got, c.same)
		}
	}
}
