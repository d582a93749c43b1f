package cli_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kdelta/kdelta/internal/cli"
	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/sysinfo"
)

// bootRoot is a machine root for sysinfo.Collect: the shared fixture of
// a 96-CPU EPYC 7451 (x86_64-amd-epyc-7451-util-linux: proc/cpuinfo and
// sys/devices, read by the fingerprint as on that machine), copied, with
// the boot id of one boot in proc/sys/kernel/random/boot_id.
func bootRoot(t *testing.T, bootID string) string {
	t.Helper()
	root := t.TempDir()
	src := filepath.Join("..", "..", "..", "shared", "fixtures", "x86_64-amd-epyc-7451-util-linux")
	if err := os.CopyFS(root, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "proc", "sys", "kernel", "random")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "boot_id"), []byte(bootID+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return root
}

// TestComparePreviousBoot: kdelta compare with no set named compares the
// newest stored set with the newest earlier one of the same workloads and
// run conditions from another boot, and says which two and why; with
// nothing to pair, one line and exit 2 (issue 34, scope 4, acceptance 6).
// The sets are real runs of syscall whose fingerprints are taken from a
// fixture root holding the boot id of boot A or B.
func TestComparePreviousBoot(t *testing.T) {
	const bootA, bootB = "0a6c4c42-7d8e-4f1e-9d6b-3c0a8f0e1a11", "5b2e9f10-0c4d-4a7b-8e21-d1f3a9b7c622"
	envA := sysinfo.Collect(sysinfo.FS{Root: bootRoot(t, bootA)}, sysinfo.Options{})
	envB := sysinfo.Collect(sysinfo.FS{Root: bootRoot(t, bootB)}, sysinfo.Options{})
	if envA.BootID != bootA || envB.BootID != bootB {
		t.Fatalf("boot ids read from the fixture roots: %q, %q", envA.BootID, envB.BootID)
	}
	dir := t.TempDir()
	measure := func(calls string, env *sysinfo.Fingerprint, at time.Time) *result.Set {
		t.Helper()
		out := filepath.Join(dir, "set.json")
		code, _, errs := kd(t, "run", "syscall:calls="+calls, "-r", "3", "--warmup", "0", "--counters", "none", "--monitor", "none", "--no-store", "-o", out)
		if code != 0 {
			t.Fatalf("run: exit %d: %s", code, errs)
		}
		s, err := result.Load(out)
		if err != nil {
			t.Fatal(err)
		}
		s.Env, s.Created = env, at
		return s
	}
	t0 := time.Now().UTC().Add(-time.Hour).Truncate(time.Second)
	first := measure("20000", envA, t0)                     // boot A: the pair's baseline
	other := measure("10000", envA, t0.Add(time.Minute))    // boot A, other parameters
	same := measure("20000", envB, t0.Add(2*time.Minute))   // boot B, as the newest
	newest := measure("20000", envB, t0.Add(3*time.Minute)) // boot B: the newest
	fill := func(sets ...*result.Set) {
		t.Helper()
		st := openStore(t, ownStore(t))
		defer st.Close()
		for _, s := range sets {
			if err := st.Save(context.Background(), s); err != nil {
				t.Fatal(err)
			}
		}
	}

	fill(first, other, same, newest)
	code, out, errs := kd(t, "compare")
	if code != 0 {
		t.Fatalf("compare: exit %d: %s", code, errs)
	}
	why := "comparing the newest stored set, " + newest.ID
	if !strings.Contains(errs, why) || !strings.Contains(errs, "earlier one of the same workloads and run conditions, "+first.ID) ||
		!strings.Contains(errs, "another boot (boot 0a6c4c42, then 5b2e9f10)") {
		t.Errorf("compare does not say it took %s and %s, of another boot:\n%s", first.ID, newest.ID, errs)
	}
	if !strings.Contains(out, "A: "+first.ID+" (baseline)") || !strings.Contains(out, "B: "+newest.ID) || !strings.Contains(out, "B vs A:") {
		t.Errorf("compare did not compare %s with %s:\n%s", first.ID, newest.ID, out)
	}

	// Nothing of another boot: one line, exit 2.
	for _, sets := range [][]*result.Set{{other, same, newest}, {newest}} {
		fill(sets...)
		code, out, errs = kd(t, "compare")
		if code != cli.ExitUsage || out != "" || strings.Count(errs, "\n") != 1 ||
			!strings.Contains(errs, "no earlier stored set pairs with the newest, "+newest.ID) || !strings.Contains(errs, "boot 5b2e9f10") {
			t.Errorf("%d sets, none of another boot with the same workloads: exit %d, stdout %q, stderr %q", len(sets), code, out, errs)
		}
	}
	if code, _, errs := kd(t, "compare", newest.ID); code != cli.ExitUsage || strings.Contains(errs, "requires at least") {
		t.Errorf("compare with one set: exit %d, %q", code, errs)
	}
}
