package counter

import (
	"bufio"
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

// Softirqs is /proc/softirqs: for each kind of softirq (HI, TIMER, NET_TX,
// NET_RX, BLOCK, IRQ_POLL, TASKLET, SCHED, HRTIMER, RCU), how many ran on
// each CPU since boot.
type Softirqs struct {
	CPUs  []int    // the CPU of each column, from the header
	Kinds []string // in file order
	// Counts holds one count per column of CPUs, by kind.
	Counts map[string][]uint64
}

// parseCPUHeader reads the "CPU0 CPU1 ..." header of /proc/softirqs and
// /proc/interrupts.
func parseCPUHeader(line string) ([]int, error) {
	var cpus []int
	for _, f := range strings.Fields(line) {
		s, ok := strings.CutPrefix(f, "CPU")
		id, err := strconv.Atoi(s)
		if !ok || err != nil || id < 0 {
			return nil, fmt.Errorf("line 1: bad CPU column %q", f)
		}
		cpus = append(cpus, id)
	}
	if len(cpus) == 0 {
		return nil, fmt.Errorf("line 1: no CPU columns")
	}
	return cpus, nil
}

// ParseSoftirqs parses the text of /proc/softirqs.
func ParseSoftirqs(b []byte) (*Softirqs, error) {
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 64*1024), 16<<20)
	if !sc.Scan() {
		return nil, fmt.Errorf("empty file")
	}
	cpus, err := parseCPUHeader(sc.Text())
	if err != nil {
		return nil, err
	}
	s := &Softirqs{CPUs: cpus, Counts: map[string][]uint64{}}
	for n := 2; sc.Scan(); n++ {
		line := sc.Text()
		if strings.TrimSpace(line) == "" {
			continue
		}
		name, rest, ok := strings.Cut(line, ":")
		name = strings.TrimSpace(name)
		if !ok || name == "" || strings.ContainsAny(name, " \t") {
			return nil, fmt.Errorf("line %d: no \"NAME:\" in %q", n, line)
		}
		nums, err := parseUints(strings.Fields(rest))
		if err != nil {
			return nil, fmt.Errorf("line %d (%s): %w", n, name, err)
		}
		if len(nums) != len(cpus) {
			return nil, fmt.Errorf("line %d (%s): %d counts for %d CPUs", n, name, len(nums), len(cpus))
		}
		if _, dup := s.Counts[name]; dup {
			return nil, fmt.Errorf("line %d: duplicate %q", n, name)
		}
		s.Kinds = append(s.Kinds, name)
		s.Counts[name] = nums
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return s, nil
}

// sample returns the counts under Monitor keys: "softirq.RCU" summed over
// CPUs and "cpu0.softirq.RCU" per CPU.
func (s *Softirqs) sample() map[string]float64 {
	m := map[string]float64{}
	for _, k := range s.Kinds {
		var sum float64
		for i, v := range s.Counts[k] {
			sum += float64(v)
			m["cpu"+strconv.Itoa(s.CPUs[i])+".softirq."+k] = float64(v)
		}
		m["softirq."+k] = sum
	}
	return m
}
