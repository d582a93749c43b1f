package report

import (
	"strings"
	"testing"
)

// FuzzWrap: kdelta env's wrapping never makes a line longer than asked,
// whatever the text (a DMI string, a command line).
func FuzzWrap(f *testing.F) {
	f.Add("mitigations=auto,no_guest_host,no_guest_guest console=ttyS0 quiet", 20)
	f.Add(strings.Repeat("x", 250), 77)
	f.Fuzz(func(t *testing.T, s string, width int) {
		if width < 1 || width > 200 {
			return
		}
		for _, l := range envWrap(ascii(s), width) {
			if len(l) > width {
				t.Fatalf("line %q longer than %d", l, width)
			}
		}
	})
}
