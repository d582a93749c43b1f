package runner_test

import (
	"reflect"
	"testing"

	"github.com/kdelta/kdelta/internal/runner"
)

// TestParseLabels checks --label values: k=v each, the value may hold
// "=" or be empty, and a value without a key is refused by name.
func TestParseLabels(t *testing.T) {
	got, err := runner.ParseLabels([]string{"kernel=6.1", "cmdline=a=b", "empty="})
	want := map[string]string{"kernel": "6.1", "cmdline": "a=b", "empty": ""}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("ParseLabels = %v, %v; want %v", got, err, want)
	}
	if got, err := runner.ParseLabels(nil); err != nil || got == nil || len(got) != 0 {
		t.Errorf("ParseLabels(nil) = %v, %v; want an empty map", got, err)
	}
	for _, bad := range []string{"kernel", "=6.1"} {
		if _, err := runner.ParseLabels([]string{bad}); err == nil || err.Error() != `--label: "`+bad+`" is not key=value` {
			t.Errorf("ParseLabels(%q): %v", bad, err)
		}
	}
}
