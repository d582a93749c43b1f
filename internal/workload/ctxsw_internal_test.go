package workload

import "testing"

// TestPickOnlineCPU checks the selftest's pick_online_cpu(): the first
// allowed CPU of 8, 16, 24, ..., else the highest allowed.
func TestPickOnlineCPU(t *testing.T) {
	for _, tc := range []struct {
		allowed []int
		want    int
	}{
		{[]int{0, 1}, 1}, // this machine
		{[]int{1}, 1},    // --cpus 1
		{[]int{0}, 0},
		{[]int{0, 1, 2, 3, 4, 5, 6, 7}, 7},
		{[]int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}, 8}, // SMT8 POWER: a primary thread
		{[]int{3, 9, 16, 17, 24}, 16},
		{[]int{8, 40}, 8},
		{[]int{2, 5, 13}, 13},
		{nil, -1},
	} {
		if got := pickOnlineCPU(tc.allowed); got != tc.want {
			t.Errorf("pickOnlineCPU(%v) = %d, want %d", tc.allowed, got, tc.want)
		}
	}
}

func TestPerSecondText(t *testing.T) {
	if got, want := perSecondText([]int64{55542, 111104, 166668}), "55542 55562 55564"; got != want {
		t.Errorf("perSecondText = %q, want %q", got, want)
	}
	if got := perSecondText(nil); got != "" {
		t.Errorf("perSecondText(nil) = %q, want empty", got)
	}
}
