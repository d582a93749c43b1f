package sysinfo

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// On a live machine the runnable tasks are counted several times, a short
// while apart, and the median count is kept: a task runnable in most
// samples competes with the runs, while one that woke for a moment (a
// daemon's timer, the tool queries kdelta itself made) does not. The
// median, not the least, because each sample reads /proc/loadavg and
// kdelta's own task states at different instants, so one sample in a few
// comes out one short of what runs (seen: 2 of 3 busy loops in half of
// the least-of-5 counts).
const (
	runnableSamples = 5
	runnableGap     = 10 * time.Millisecond
)

// otherRunnable counts the runnable tasks that are not kdelta's: the
// running field of /proc/loadavg (every task in state R, the reader
// included) minus the tasks in state R of kdelta's process tree
// (/proc/self and its descendants). Unlike the load average, which decays
// over minutes, the count is of now: the threads of kdelta's runs that
// just ended, and kdelta's own, are not in it.
func (c *collector) otherRunnable() Fact {
	taskDirs, own := c.ownTaskDirs()
	samples := 1
	if c.live() {
		samples = runnableSamples
	}
	counts := make([]int, 0, samples)
	for i := 0; i < samples; i++ {
		if i > 0 {
			time.Sleep(runnableGap)
		}
		running, f := c.loadavgRunning()
		if !f.Known() {
			return f
		}
		mine := 1 // the reader, when kdelta's tree cannot be read
		if taskDirs != nil {
			mine = c.runningTasks(taskDirs)
		}
		counts = append(counts, max(running-mine, 0))
	}
	slices.Sort(counts)
	src := "/proc/loadavg running tasks minus " + own
	if samples > 1 {
		src += fmt.Sprintf(", median of %d samples %v apart", samples, runnableGap)
	}
	return Fact{Value: strconv.Itoa(counts[len(counts)/2]), Source: src}
}

// loadavgRunning reads the running tasks of /proc/loadavg's fourth field
// (RUNNING/TOTAL), or says why it cannot.
func (c *collector) loadavgRunning() (int, Fact) {
	const file = "proc/loadavg"
	s, err := c.fs.readString(file)
	if err != nil {
		return 0, unknown(file, err)
	}
	f := strings.Fields(s)
	if len(f) < 4 {
		return 0, Fact{Unknown: "/proc/loadavg: fewer than 4 fields: " + quote(s)}
	}
	r, _, ok := strings.Cut(f[3], "/")
	n, err := strconv.Atoi(r)
	if !ok || err != nil || n < 0 {
		return 0, Fact{Unknown: "/proc/loadavg: field 4 is not RUNNING/TOTAL: " + quote(f[3])}
	}
	return n, Fact{Value: r}
}

// ownTaskDirs returns the task directories of kdelta's process tree,
// /proc/self/task first and then /proc/PID/task of each descendant, with
// what the count subtracts in words. It returns nil when /proc/self cannot
// be read (a fixture tree without it): the reader alone is subtracted.
func (c *collector) ownTaskDirs() ([]string, string) {
	data, err := c.fs.read("proc/self/stat")
	if err != nil {
		// A fixture tree, or a /proc that hides it.
		return nil, "the reader (no /proc/self/stat)"
	}
	self, _, _, ok := parseStat(data)
	if !ok {
		return nil, "the reader (/proc/self/stat malformed)"
	}
	dirs := []string{"proc/self/task"}
	names, err := c.fs.list("proc")
	if err != nil {
		return dirs, "kdelta's running threads"
	}
	children := map[int][]int{}
	for _, n := range names {
		if !isDigits(n) {
			continue
		}
		d, err := c.fs.read("proc/" + n + "/stat")
		if err != nil {
			continue // exited since the listing
		}
		if pid, _, ppid, ok := parseStat(d); ok {
			children[ppid] = append(children[ppid], pid)
		}
	}
	seen := map[int]bool{self: true}
	queue := append([]int(nil), children[self]...)
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		if seen[p] {
			continue
		}
		seen[p] = true
		dirs = append(dirs, "proc/"+strconv.Itoa(p)+"/task")
		queue = append(queue, children[p]...)
	}
	if len(dirs) > 1 {
		return dirs, fmt.Sprintf("the running threads of kdelta and its %d child processes", len(dirs)-1)
	}
	return dirs, "kdelta's running threads"
}

// runningTasks counts the tasks in state R under the task directories.
func (c *collector) runningTasks(taskDirs []string) int {
	n := 0
	for _, dir := range taskDirs {
		tids, err := c.fs.list(dir)
		if err != nil {
			continue // a child that exited
		}
		for _, tid := range tids {
			d, err := c.fs.read(dir + "/" + tid + "/stat")
			if err != nil {
				continue
			}
			if _, state, _, ok := parseStat(d); ok && state == "R" {
				n++
			}
		}
	}
	return n
}

// parseStat reads the pid, state and parent pid from a /proc/PID/stat
// line, "PID (COMM) STATE PPID ...", where COMM may hold spaces and
// parentheses.
func parseStat(data []byte) (pid int, state string, ppid int, ok bool) {
	open := bytes.IndexByte(data, '(')
	end := bytes.LastIndexByte(data, ')')
	if open < 1 || end < open {
		return 0, "", 0, false
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data[:open])))
	if err != nil {
		return 0, "", 0, false
	}
	f := strings.Fields(string(data[end+1:]))
	if len(f) < 2 {
		return 0, "", 0, false
	}
	ppid, err = strconv.Atoi(f[1])
	if err != nil {
		return 0, "", 0, false
	}
	return pid, f[0], ppid, true
}
