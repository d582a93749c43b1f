package sysinfo

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestKeepBootLines checks that the preemption and RCU lines survive a
// log that lost them to a flood: kept from the first read of the boot,
// put back in front of the second, and replaced by a newer line of the
// same kind when the log prints one again.
func TestKeepBootLines(t *testing.T) {
	file := filepath.Join(t.TempDir(), "bootlog-x")
	boot := "[    0.1] rcu: Preemptible hierarchical RCU implementation.\n[    0.2] Dynamic Preempt: none\n[    1.0] systemd: started\n"
	if got := keepBootLines(boot, file); got != boot {
		t.Errorf("a full log is changed: %q", got)
	}
	flood := strings.Repeat("[  999.0] br0: port 1 entered blocking state\n", 3)
	got := keepBootLines(flood, file)
	if bootLogPreempt(got) != "none" || bootLogPreemptRCU(got) != "y" || !strings.HasSuffix(got, flood) {
		t.Errorf("after a flood: mode %q, RCU %q, log %q", bootLogPreempt(got), bootLogPreemptRCU(got), got)
	}
	// A mode changed through debugfs prints the line again: it wins.
	again := flood + "[ 1000.0] Dynamic Preempt: full\n"
	if m := bootLogPreempt(keepBootLines(again, file)); m != "full" {
		t.Errorf("a newer line: mode %q, want full", m)
	}
	if got := keepBootLines(flood, file); bootLogPreempt(got) != "full" || bootLogPreemptRCU(got) != "y" {
		t.Errorf("after the newer line and another flood: mode %q RCU %q", bootLogPreempt(got), bootLogPreemptRCU(got))
	}
	other := filepath.Join(t.TempDir(), "bootlog-y")
	if got := keepBootLines(flood, other); got != flood {
		t.Errorf("another boot's file lends its lines: %q", got)
	}
}
