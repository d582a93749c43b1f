package runner

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// rtBudgetRoots are where cgroup v1's cpu controller is mounted on the
// distributions kdelta runs on; /proc/self/cgroup names the cgroup under
// it.
var rtBudgetRoots = []string{"/sys/fs/cgroup/cpu", "/sys/fs/cgroup/cpu,cpuacct", "/sys/fs/cgroup/cpuacct,cpu"}

// rtBudget says why SCHED_FIFO was refused to root when the cause is the
// cgroup's real-time budget, not a privilege: in a cgroup v1 cpu
// controller with CONFIG_RT_GROUP_SCHED, a task of a cgroup whose
// cpu.rt_runtime_us is 0 (a new cgroup's value) may not take a real-time
// policy, and sched_setattr says EPERM, which read as "needs root" (issue
// 35 point 11). It names the knob to raise, the cgroup nearest the root
// with no budget first (a child's budget cannot exceed its parent's); ""
// when the cgroup has a budget or there is no such controller. procCgroup
// is /proc/self/cgroup's text.
func rtBudget(procCgroup string, roots []string) string {
	cg := ""
	for l := range strings.SplitSeq(procCgroup, "\n") {
		parts := strings.SplitN(l, ":", 3)
		if len(parts) == 3 && parts[1] != "" && slices.Contains(strings.Split(parts[1], ","), "cpu") {
			cg = parts[2]
		}
	}
	if cg == "" {
		return ""
	}
	for _, root := range roots {
		leaf := filepath.Join(root, cg, "cpu.rt_runtime_us")
		v, err := os.ReadFile(leaf)
		if err != nil {
			continue
		}
		if strings.TrimSpace(string(v)) != "0" {
			return ""
		}
		// The first cgroup from the root down whose budget is 0.
		first := leaf
		var walk []string
		for d := path.Clean(cg); d != "/" && d != "."; d = path.Dir(d) {
			walk = append([]string{d}, walk...)
		}
		for _, d := range walk {
			f := filepath.Join(root, d, "cpu.rt_runtime_us")
			if b, err := os.ReadFile(f); err == nil && strings.TrimSpace(string(b)) == "0" {
				first = f
				break
			}
		}
		msg := fmt.Sprintf("kdelta's cgroup %s has no real-time budget (%s is 0), so the kernel refuses SCHED_FIFO even to root: raise it", cg, leaf)
		if first != leaf {
			msg += fmt.Sprintf(", from %s down", first)
		}
		return msg + " (echo 950000 > FILE; a child's budget fits in its parent's) or run kdelta outside that cgroup"
	}
	return ""
}
