package lab

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/kdelta/kdelta/internal/vm"
)

// River's own rule for queue names (client.go's nameRegex).
var riverQueueName = regexp.MustCompile(`^(?:[a-z0-9])+(?:[_|\-]?[a-z0-9]+)*$`)

func TestQueueOf(t *testing.T) {
	names := []string{"vm", "p10-a", "P10-A", "p10.a", "p10_a", "p10__a", "epyc-b.lab.example.com", "_x", strings.Repeat("n", 200)}
	seen := map[string]string{}
	for _, n := range names {
		q := queueOf(n)
		if !riverQueueName.MatchString(q) || len(q) > 64 {
			t.Errorf("queueOf(%q) = %q: not a River queue name", n, q)
		}
		if other, dup := seen[q]; dup {
			t.Errorf("queueOf(%q) = queueOf(%q) = %q", n, other, q)
		}
		seen[q] = n
	}
}

func TestChildArgs(t *testing.T) {
	cases := []struct {
		job  JobArgs
		want string
	}{
		{JobArgs{Command: "run", Args: []string{"syscall", "-r", "3"}},
			"run syscall -r 3 --no-store -o D/set --label lab.job=7 -r 2"},
		{JobArgs{Command: "ab", Args: []string{"--variant", "a:smt=1", "--variant", "b:smt=0", "-r", "9", "--", "pipe"}},
			"ab --variant a:smt=1 --variant b:smt=0 -r 9 --no-store -o D/set --label lab.job=7 -r 2 -- pipe"},
		{JobArgs{Command: "stat", Args: []string{"-r", "5", "--", "true", "--", "x"}},
			"stat -r 5 --no-store -o D/set --label lab.job=7 -r 2 -- true -- x"},
		{JobArgs{Command: "vm", Args: []string{"--kernel", "K", "--", "run", "syscall", "-r", "3"}},
			"vm --kernel K --no-store -o D --label lab.job=7 -- run syscall -r 3"},
		// A/B across boots until conclusive: its flags reach the agent's
		// kdelta vm as given.
		{JobArgs{Command: "vm", Args: []string{"--kernel", "K", "--append", "x=0", "--append", "x=1", "--boots", "2", "--until-conclusive", "--max-boots", "6", "--", "run", "rcu"}},
			"vm --kernel K --append x=0 --append x=1 --boots 2 --until-conclusive --max-boots 6 --no-store -o D --label lab.job=7 -- run rcu"},
	}
	for _, c := range cases {
		if got := strings.Join(childArgs(c.job, "D", 7, 2), " "); got != c.want {
			t.Errorf("childArgs(%v):\n got %s\nwant %s", c.job, got, c.want)
		}
	}
}

func TestParseLabels(t *testing.T) {
	l, err := ParseLabels("arch=ppc64le, cpus=160,smt=8", "--labels")
	if err != nil || l.String() != "arch=ppc64le,cpus=160,smt=8" {
		t.Fatalf("ParseLabels: %v %v", l, err)
	}
	if !l.Match(Labels{"arch": "ppc64le"}) || !l.Match(Labels{}) || l.Match(Labels{"arch": "amd64"}) || l.Match(Labels{"zone": "1"}) {
		t.Error("Match")
	}
	for _, bad := range []string{"arch", "=x", "a=b,a=c", "a=b c", "a=\x1b[2J"} {
		if _, err := ParseLabels(bad, "--labels"); err == nil || !strings.HasPrefix(err.Error(), "--labels: ") {
			t.Errorf("ParseLabels(%q): %v, want an error naming --labels", bad, err)
		}
	}
}

// The boot check: another boot id, the release and the command line the
// boot step recorded, before its deadline; and a measuring step measures
// only in the boot its boot step made.
func TestBootCheck(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	rec := bootRecord{Release: "6.1.0-57-amd64", Cmdline: "root=/dev/vda1 x=1", BootID: "before", Deadline: now.Add(time.Minute)}
	for _, tc := range []struct {
		name string
		now  vm.BootReport
		at   time.Time
		err  string
	}{
		{"booted", vm.BootReport{Release: rec.Release, Cmdline: rec.Cmdline, BootID: "after"}, now, ""},
		{"not rebooted", vm.BootReport{Release: "6.1.0-57-cloud-amd64", Cmdline: "root=/dev/vda1", BootID: "before"}, now, "did not boot: the boot id is still before"},
		{"default kernel", vm.BootReport{Release: "6.1.0-57-cloud-amd64", Cmdline: "root=/dev/vda1", BootID: "after"}, now, "did not boot: 6.1.0-57-cloud-amd64 is running, not 6.1.0-57-amd64"},
		{"other cmdline", vm.BootReport{Release: rec.Release, Cmdline: "root=/dev/vda1", BootID: "after"}, now, `came up with the command line "root=/dev/vda1"`},
		{"late", vm.BootReport{Release: rec.Release, Cmdline: rec.Cmdline, BootID: "after"}, now.Add(2 * time.Minute), "did not boot within the deadline"},
	} {
		err := rec.check(tc.now, tc.at)
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%s: %v; want an error saying %q", tc.name, err, tc.err)
		}
	}

	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "proc/sys/kernel/random"), 0o755)
	os.WriteFile(filepath.Join(root, "proc/sys/kernel/random/boot_id"), []byte("after\n"), 0o644)
	a := &agent{opt: AgentOptions{Root: root}}
	if err := a.checkBooted(&Booted{Job: 7, Release: rec.Release, BootID: "after"}); err != nil {
		t.Errorf("in the boot its boot step made: %v", err)
	}
	if err := a.checkBooted(&Booted{Job: 7, Release: rec.Release, BootID: "earlier"}); err == nil || !strings.Contains(err.Error(), "rebooted since job 7 booted") {
		t.Errorf("in another boot: %v; want a refusal naming job 7", err)
	}
}
