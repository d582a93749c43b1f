package cli_test

import (
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

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
