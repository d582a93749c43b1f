package store

import (
	"context"
	"strings"
	"testing"
)

// TestOpenRefusesOtherSchemes: a writer and a reader alike refuse a URL
// of a database kdelta does not open, by its scheme, without naming the
// password, and make no SQLite file after it.
func TestOpenRefusesOtherSchemes(t *testing.T) {
	t.Chdir(t.TempDir())
	for _, open := range []func(context.Context, string) (Store, error){Open, OpenReadOnly} {
		for _, loc := range []string{"mysql://u:secretpw@h/x", "postgress://u:secretpw@h/x"} {
			st, err := open(context.Background(), loc)
			if err == nil {
				st.Close()
				t.Fatalf("%s opened", loc)
			}
			if strings.Contains(err.Error(), "secretpw") || !strings.Contains(err.Error(), "is not a store kdelta opens") {
				t.Errorf("%s: %v", loc, err)
			}
		}
	}
}
