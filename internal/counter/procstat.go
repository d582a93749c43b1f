package counter

import (
	"bufio"
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

// UserHZ is the unit of the times in /proc/stat: USER_HZ, which is 100 on
// every architecture kdelta runs on (x86_64, arm64, ppc64le, s390x),
// whatever the kernel's CONFIG_HZ.
const UserHZ = 100

// cpuTimeNames are the columns of a cpu line of /proc/stat, in order
// (fs/proc/stat.c). Older kernels print fewer (steal since 2.6.11, guest
// 2.6.24, guest_nice 2.6.33).
var cpuTimeNames = []string{"user", "nice", "sys", "idle", "iowait", "irq", "softirq", "steal", "guest", "guest_nice"}

// CPUTimes are one cpu line of /proc/stat, in USER_HZ ticks, by column
// name ("user", "sys", ...; see cpuTimeNames). Columns the kernel did not
// print are absent.
type CPUTimes map[string]uint64

// ProcStat is /proc/stat.
type ProcStat struct {
	Total CPUTimes // the "cpu" line
	// CPUs holds the "cpuN" lines by CPU number (offline CPUs are absent).
	CPUs         map[int]CPUTimes
	Intr         uint64 // total interrupts serviced since boot
	Ctxt         uint64 // context switches since boot
	Btime        uint64 // boot time, seconds since the epoch
	Processes    uint64 // forks since boot
	ProcsRunning uint64 // runnable tasks now
	ProcsBlocked uint64 // tasks blocked on I/O now
	SoftIRQ      uint64 // softirqs serviced since boot, all kinds
	// SoftIRQs holds the per-kind counts of the softirq line, in the
	// kernel's order (HI, TIMER, NET_TX, ...).
	SoftIRQs []uint64
}

// softirqNames is the order of the softirq line of /proc/stat
// (include/linux/interrupt.h); /proc/softirqs names them itself.
var softirqNames = []string{"HI", "TIMER", "NET_TX", "NET_RX", "BLOCK", "IRQ_POLL", "TASKLET", "SCHED", "HRTIMER", "RCU"}

// ParseProcStat parses the text of /proc/stat. Lines it does not know are
// skipped, so that a newer kernel's additions do not break it.
func ParseProcStat(b []byte) (*ProcStat, error) {
	ps := &ProcStat{CPUs: map[int]CPUTimes{}}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 64*1024), 16<<20) // the intr line is long
	n := 0
	seen := map[string]bool{}
	for sc.Scan() {
		n++
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		key := f[0]
		if seen[key] {
			return nil, fmt.Errorf("line %d: duplicate %q line", n, key)
		}
		seen[key] = true
		nums, err := parseUints(f[1:])
		if err != nil {
			return nil, fmt.Errorf("line %d (%s): %w", n, key, err)
		}
		single := func(dst *uint64) error {
			if len(nums) < 1 {
				return fmt.Errorf("line %d: %q has no value", n, key)
			}
			*dst = nums[0]
			return nil
		}
		switch {
		case strings.HasPrefix(key, "cpu"):
			if len(nums) < 4 {
				return nil, fmt.Errorf("line %d: %q has %d times, want at least 4", n, key, len(nums))
			}
			t := CPUTimes{}
			for i, v := range nums {
				if i < len(cpuTimeNames) {
					t[cpuTimeNames[i]] = v
				}
			}
			if key == "cpu" {
				ps.Total = t
				continue
			}
			id, err := strconv.Atoi(key[3:])
			if err != nil || id < 0 {
				return nil, fmt.Errorf("line %d: bad cpu %q", n, key)
			}
			ps.CPUs[id] = t
		case key == "intr":
			err = single(&ps.Intr)
		case key == "ctxt":
			err = single(&ps.Ctxt)
		case key == "btime":
			err = single(&ps.Btime)
		case key == "processes":
			err = single(&ps.Processes)
		case key == "procs_running":
			err = single(&ps.ProcsRunning)
		case key == "procs_blocked":
			err = single(&ps.ProcsBlocked)
		case key == "softirq":
			if err = single(&ps.SoftIRQ); err == nil {
				ps.SoftIRQs = nums[1:]
			}
		}
		if err != nil {
			return nil, err
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("line %d: %w", n+1, err)
	}
	if ps.Total == nil {
		return nil, fmt.Errorf("no cpu line")
	}
	return ps, nil
}

func parseUints(f []string) ([]uint64, error) {
	nums := make([]uint64, len(f))
	for i, s := range f {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("field %d: bad number %q", i+1, s)
		}
		nums[i] = v
	}
	return nums, nil
}

// sample returns the counters and gauges of ps under the flat keys of a
// Monitor: "ctxt", "intr", "processes", "softirq", "softirq.RCU",
// "cpu.user" (all CPUs), "cpu1.sys" in ticks and "cpu1.sys_s" in seconds;
// procs_running and procs_blocked are gauges (values now, not deltas).
func (ps *ProcStat) sample() (counters, gauges map[string]float64) {
	counters = map[string]float64{
		"ctxt":      float64(ps.Ctxt),
		"intr":      float64(ps.Intr),
		"processes": float64(ps.Processes),
		"softirq":   float64(ps.SoftIRQ),
	}
	for i, v := range ps.SoftIRQs {
		if i < len(softirqNames) {
			counters["softirq."+softirqNames[i]] = float64(v)
		}
	}
	times := func(prefix string, t CPUTimes) {
		for k, v := range t {
			counters[prefix+"."+k] = float64(v)
			counters[prefix+"."+k+"_s"] = float64(v) / UserHZ
		}
	}
	times("cpu", ps.Total)
	for id, t := range ps.CPUs {
		times("cpu"+strconv.Itoa(id), t)
	}
	gauges = map[string]float64{
		"procs_running": float64(ps.ProcsRunning),
		"procs_blocked": float64(ps.ProcsBlocked),
	}
	return counters, gauges
}
