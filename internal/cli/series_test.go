package cli_test

import (
	"context"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/testenv"
)

// newestCloudBuilds returns the n newest versioned Debian cloud-amd64
// kernel packages apt knows, oldest first.
func newestCloudBuilds(t *testing.T, n int) []string {
	t.Helper()
	testenv.NeedCommand(t, "apt-cache", "apt")
	out, err := exec.Command("apt-cache", "search", "--names-only", `^linux-image-[0-9.]+-[0-9]+-cloud-amd64$`).Output()
	if err != nil {
		t.Fatalf("apt-cache search: %v", err)
	}
	re := regexp.MustCompile(`^(linux-image-[0-9.]+-([0-9]+)-cloud-amd64) `)
	type build struct {
		name string
		abi  int
	}
	var bs []build
	for _, l := range strings.Split(string(out), "\n") {
		if m := re.FindStringSubmatch(l); m != nil {
			abi, _ := strconv.Atoi(m[2])
			bs = append(bs, build{m[1], abi})
		}
	}
	if len(bs) < n {
		testenv.Skipf(t, "apt knows %d cloud-amd64 kernel builds, the test needs %d", len(bs), n)
	}
	sort.Slice(bs, func(i, j int) bool { return bs[i].abi < bs[j].abi })
	var names []string
	for _, b := range bs[len(bs)-n:] {
		names = append(names, b.name)
	}
	return names
}

// TestSeriesAcrossBuilds is issue 21's acceptance 3: kdelta series over
// three Debian amd64 builds from the archive boots them round-robin,
// keeps a set per build labelled by its version, prints the history in
// version order, and finds a step planted at the last build (its boots
// have rcupdate.rcu_expedited=1, so a grace period takes microseconds
// instead of milliseconds), naming the builds on either side and the
// command lines that differ.
func TestSeriesAcrossBuilds(t *testing.T) {
	t.Parallel() // a guest of its own: the boots of the vm tests overlap
	testenv.NeedRoot(t, "kdelta series --kernel deb: fetches kernel packages with apt-get")
	vmKernel(t) // qemu and a kernel cache
	builds := newestCloudBuilds(t, 3)
	dir := t.TempDir()
	args := []string{"series", "--accel", "tcg", "--no-store", "-o", dir}
	for i, b := range builds {
		args = append(args, "--kernel", "deb:"+b)
		if i == len(builds)-1 {
			args = append(args, "--append", "rcupdate.rcu_expedited=1")
		} else {
			args = append(args, "--append", "")
		}
	}
	args = append(args, "--", "run", "rcu:calls=10", "-r", "5", "--warmup", "0")
	out, err := exec.Command(kdeltaBinary(t), args...).CombinedOutput()
	if err != nil {
		t.Fatalf("kdelta %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	sets, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	if len(sets) != 3 {
		t.Fatalf("%d sets, want 3\n%s", len(sets), out)
	}
	for _, p := range sets {
		s, err := result.Load(p)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(s.Labels["kernel_package"], "linux-image-") || !strings.Contains(s.Labels["kernel_package"], "=") {
			t.Errorf("%s: kernel_package %q, want NAME=VERSION", filepath.Base(p), s.Labels["kernel_package"])
		}
	}
	text := string(out)
	var at []int
	for _, b := range builds {
		at = append(at, strings.LastIndex(text, strings.TrimPrefix(b, "linux-image-")))
	}
	if at[0] < 0 || !(at[0] < at[1] && at[1] < at[2]) {
		t.Errorf("the history does not list the builds in version order (%v):\n%s", at, text)
	}
	last, prev := strings.TrimPrefix(builds[2], "linux-image-"), strings.TrimPrefix(builds[1], "linux-image-")
	if want := "the step is between " + prev + " and " + last; !strings.Contains(text, want) {
		t.Errorf("no %q:\n%s", want, text)
	}
	if !strings.Contains(text, `! cmdline: "" -> "rcupdate.rcu_expedited=1"`) {
		t.Errorf("the step does not name the command lines that differ:\n%s", text)
	}
}

// bootsUntil runs kdelta COMMAND (series or vm) --until-conclusive over
// the test kernel booted as two variants, A with appendA and B with
// appendB, under TCG, with guest (the guest's run) inside, each boot and
// the whole command bounded in time, and returns its stdout and stderr,
// the directory of the sets it wrote, and the boots each variant had, by
// letter (from its set's boots label, checked against its runs' boots).
func bootsUntil(t *testing.T, command, appendA, appendB string, guest []string, flags ...string) (stdout, stderr, dir string, boots map[string]int) {
	t.Helper()
	kernel := vmKernel(t)
	dir = t.TempDir()
	args := append([]string{command, "--accel", "tcg", "--no-store", "-o", dir, "--timeout", "2m",
		"--kernel", kernel, "--append", appendA, "--append", appendB, "--until-conclusive"}, flags...)
	args = append(append(args, "--"), guest...)
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, kdeltaBinary(t), args...)
	var o, e strings.Builder
	cmd.Stdout, cmd.Stderr = &o, &e
	if err := cmd.Run(); err != nil {
		t.Fatalf("kdelta %s: %v\n%s\n%s", strings.Join(args, " "), err, o.String(), e.String())
	}
	boots = map[string]int{}
	paths, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	for _, p := range paths {
		s, err := result.Load(p)
		if err != nil {
			t.Fatal(err)
		}
		n, _ := strconv.Atoi(s.Labels["boots"])
		boots[s.Labels["variant"]] = n
		seen := map[string]bool{}
		for _, b := range s.Benchmarks {
			for _, r := range b.Runs {
				seen[r.Info["boot"]] = true
			}
		}
		if len(seen) != n {
			t.Errorf("%s: boots label %d, runs from %d boots", filepath.Base(p), n, len(seen))
		}
	}
	return o.String(), e.String(), dir, boots
}

// seriesGuest is the guest's run of the series tests.
var seriesGuest = []string{"run", "rcu:calls=10", "-r", "5", "--warmup", "0"}

// TestSeriesUntilConclusiveClearStep is issue 21's series
// --until-conclusive on a real step: B boots with rcupdate.rcu_expedited=1,
// so a grace period takes microseconds instead of milliseconds. After the
// first round of three boots each the step is clear, and no build gets
// another boot though --max-boots allows five.
func TestSeriesUntilConclusiveClearStep(t *testing.T) {
	t.Parallel() // a guest of its own: the boots of the vm tests overlap
	out, errOut, _, boots := bootsUntil(t, "series", "", "rcupdate.rcu_expedited=1", seriesGuest, "--boots", "3", "--max-boots", "5")
	if boots["A"] != 3 || boots["B"] != 3 {
		t.Errorf("boots per build %v, want 3 each (the first round only)\n%s", boots, errOut)
	}
	if strings.Contains(errOut, "(until conclusive)") {
		t.Errorf("a boot was added though the step was clear:\n%s", errOut)
	}
	release := strings.TrimPrefix(filepath.Base(vmKernel(t)), "vmlinuz-")
	want := "until-conclusive: rcu callers=1,calls=10: " + release + " (A) -> " + release + " (B): clear after 3 boots each: improved"
	if !strings.Contains(out, want) {
		t.Errorf("no %q:\n%s", want, out)
	}
	if want := "the step is between " + release + " (A) and " + release + " (B)"; !strings.Contains(out, want) {
		t.Errorf("no %q: one image with two command lines must be two points of the series:\n%s", want, out)
	}
}

// TestSeriesUntilConclusiveMaxBoots is the other end: two builds that
// are the same kernel and command line. One boot each cannot tell a step
// from two boots' own states, so both get boots, in turn (A B), until
// --max-boots 2, where the place stays unclear and the stop line says
// so. --alpha 0.001 keeps the test from failing on the 5% of identical
// pairs a comparison at the default α calls a change.
func TestSeriesUntilConclusiveMaxBoots(t *testing.T) {
	t.Parallel() // a guest of its own: the boots of the vm tests overlap
	out, errOut, _, boots := bootsUntil(t, "series", "", "", seriesGuest, "--boots", "1", "--max-boots", "2", "--alpha", "0.001")
	if boots["A"] != 2 || boots["B"] != 2 {
		t.Errorf("boots per build %v, want 2 each (--max-boots)\n%s", boots, errOut)
	}
	order := regexp.MustCompile(`boot (\d \(until conclusive\)|\d/2): ([AB]) `).FindAllStringSubmatch(errOut, -1)
	var seq []string
	for _, m := range order {
		seq = append(seq, m[2]+" "+m[1])
	}
	if want := "A 1/2,B 2/2,A 3 (until conclusive),B 4 (until conclusive)"; strings.Join(seq, ",") != want {
		t.Errorf("boots %q, want %q\n%s", strings.Join(seq, ","), want, errOut)
	}
	if !regexp.MustCompile(`until-conclusive: rcu callers=1,calls=10: \S+ \(A\) -> \S+ \(B\): reached --max-boots 2: inconclusive`).MatchString(out) {
		t.Errorf("no stop line saying the place stayed inconclusive at --max-boots 2:\n%s", out)
	}
}
