package store

import (
	"context"
	"strings"
	"testing"
)

// TestPostgresUnreachableReason: a PostgreSQL that cannot be reached is
// said in one line that keeps the reason (pgx writes it on lines of its
// own, which the first-line error printing cut off), without the password.
func TestPostgresUnreachableReason(t *testing.T) {
	for _, tc := range []struct{ url, reason string }{
		// Port 1 on loopback: nothing listens, the kernel refuses.
		{"postgres://u:secret@127.0.0.1:1/x", "dial tcp 127.0.0.1:1: connect: connection refused"},
		// .invalid never resolves (RFC 2606).
		{"postgres://u:secret@kdelta-test.invalid/x", "lookup kdelta-test.invalid"},
	} {
		_, err := openPostgres(context.Background(), tc.url)
		if err == nil {
			t.Fatalf("%s: opened", tc.url)
		}
		msg := err.Error()
		if strings.Contains(msg, "\n") {
			t.Errorf("%s: message on several lines: %q", tc.url, msg)
		}
		if !strings.Contains(msg, tc.reason) {
			t.Errorf("%s: %q lacks the reason %q", tc.url, msg, tc.reason)
		}
		if strings.Contains(msg, "secret") {
			t.Errorf("%s: %q shows the password", tc.url, msg)
		}
		if strings.Count(msg, tc.reason) != 1 {
			t.Errorf("%s: %q says the reason more than once", tc.url, msg)
		}
	}
}
