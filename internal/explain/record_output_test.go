package explain

import (
	"strings"
	"testing"

	"github.com/kdelta/kdelta/internal/result"
)

// TestRecordCommandOutput: the command explain suggests for recording
// profiles writes a file of its own, never the -o of the set being
// explained (issue 35 point 11), and keeps every other argument.
func TestRecordCommandOutput(t *testing.T) {
	for _, tc := range []struct{ cmd, want string }{
		{"kdelta run syscall:calls=1000 -r 3 --warmup 0 --no-store -o a1.json", "kdelta run --profile syscall:calls=1000 -r 3 --warmup 0 --no-store -o a1-profiled.json"},
		{"kdelta run syscall --output=runs/b2.json", "kdelta run --profile syscall --output=runs/b2-profiled.json"},
		{"kdelta run syscall -oa1.json", "kdelta run --profile syscall -oa1-profiled.json"},
		{"kdelta run syscall -o=a1.json", "kdelta run --profile syscall -o=a1-profiled.json"},
		{"kdelta run --profile syscall -o out", "kdelta run --profile syscall -o out-profiled"},
		{"kdelta run syscall -o /dev/stdout", "kdelta run --profile syscall -o /dev/stdout"},
		{"kdelta ab --variant a:smt=on --variant b:smt=off -o ab.json -- syscall -o x", "kdelta ab --profile --variant a:smt=on --variant b:smt=off -o ab-profiled.json -- syscall -o x"},
		{"kdelta run syscall", "kdelta run --profile syscall"},
	} {
		got := strings.Join(recordCommand(&result.Set{Command: strings.Fields(tc.cmd)}), " ")
		if got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.cmd, got, tc.want)
		}
	}
}
