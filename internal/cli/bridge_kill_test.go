package cli_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"

	"github.com/kdelta/kdelta/internal/testenv"
)

func command(t *testing.T, name string, args ...string) string {
	t.Helper()
	out, err := exec.Command(name, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %v: %v: %s", name, args, err, out)
	}
	return string(out)
}

func linkNames(t *testing.T) []string {
	var names []string
	for _, line := range strings.Split(command(t, "ip", "-o", "link", "show"), "\n") {
		if f := strings.Fields(line); len(f) > 1 {
			names = append(names, strings.TrimSuffix(f[1], ":"))
		}
	}
	sort.Strings(names)
	return names
}

// TestSIGKILLBridgeLeavesNothing kills kdelta in the middle of bridge runs
// and checks that no process, network namespace, bridge or veth remains.
func TestSIGKILLBridgeLeavesNothing(t *testing.T) {
	if os.Geteuid() != 0 {
		testenv.Skip(t, "the bridge workload needs CAP_NET_ADMIN and CAP_SYS_ADMIN: skipped when not root")
	}
	if _, err := exec.LookPath("ip"); err != nil {
		testenv.Skip(t, "ip (iproute2) not installed: skipped")
	}
	netnsBefore := command(t, "ip", "netns", "list")
	linksBefore := linkNames(t)

	path := filepath.Join(t.TempDir(), "f.json")
	cmd, mark := startMarked(t, "run", "bridge:cycles=20,vlan_filtering=false", "-r", "50", "--warmup", "0", "-o", path)
	waitRuns(t, path, 1)
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	// The workload's namespace is anonymous: with no process left in it
	// (checked here) and no bind mount (ip netns list), it is gone.
	waitNoSurvivors(t, mark, cmd.Process.Pid)

	if after := command(t, "ip", "netns", "list"); after != netnsBefore {
		t.Errorf("ip netns list changed:\nbefore: %q\nafter:  %q", netnsBefore, after)
	}
	if after := linkNames(t); strings.Join(after, " ") != strings.Join(linksBefore, " ") {
		t.Errorf("links changed:\nbefore: %v\nafter:  %v", linksBefore, after)
	}
}
