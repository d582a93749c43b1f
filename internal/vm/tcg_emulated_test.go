package vm

import (
	"testing"

	"github.com/kdelta/kdelta/internal/compare"
	"github.com/kdelta/kdelta/internal/result"
)

// TestTCGWarningMarksEmulated: the warning recorded in the sets of boots
// under TCG is what compare reads to put "emulated (TCG)" on every
// verdict of them.
func TestTCGWarningMarksEmulated(t *testing.T) {
	if !compare.Emulated(&result.Set{Warnings: []string{TCGWarning}}) {
		t.Errorf("compare.Emulated does not know %q", TCGWarning)
	}
	if compare.Emulated(&result.Set{Warnings: []string{"the machine is virtualized (kvm)"}}) {
		t.Error("compare.Emulated takes a KVM guest for emulated")
	}
}
