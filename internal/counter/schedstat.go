package counter

import (
	"bufio"
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

// Schedstat is /proc/schedstat, versions 15, 16 and 17, with every
// counter under a name that means the same whatever the version (see
// ../shared/fixtures/schedstat/FORMAT.md for the layouts).
type Schedstat struct {
	Version   int
	Timestamp uint64 // jiffies
	CPUs      []SchedCPU
}

// A SchedCPU is one cpuN line and the domain lines after it.
type SchedCPU struct {
	ID int
	// Fields holds the run queue counters by name: yld_count, sched_count,
	// sched_goidle, ttwu_count, ttwu_local (counted only with
	// kernel.sched_schedstats=1), rq_cpu_time and run_delay (ns) and
	// pcount (timeslices), which are always counted.
	Fields  map[string]uint64
	Domains []SchedDomain
}

// A SchedDomain is one domainN line: the load-balancing statistics of one
// scheduling domain level as seen from its CPU.
type SchedDomain struct {
	Index int
	Name  string // SMT, MC, PKG, NUMA...; only version 17 prints it
	Mask  string // the span, as the kernel prints it (hex groups)
	// LB holds the load-balancing counters by idle type ("idle", "busy",
	// "newly_idle") and then by field (lb_count, lb_balanced, ...).
	// Versions 15 and 16 print the same fields in a different order of idle
	// types; both are read to the same meaning here.
	LB map[string]map[string]uint64
	// Fields holds the rest: alb_*, sbe_*, sbf_*, ttwu_wake_remote,
	// ttwu_move_affine, ttwu_move_balance.
	Fields map[string]uint64
}

// The names of the numbers on a cpu line, in order; "" is the historic
// field that is always 0.
var schedCPUFields = []string{"yld_count", "", "sched_count", "sched_goidle", "ttwu_count", "ttwu_local", "rq_cpu_time", "run_delay", "pcount"}

var (
	lbFields15 = []string{"lb_count", "lb_balanced", "lb_failed", "lb_imbalance", "lb_gained", "lb_hot_gained", "lb_nobusyq", "lb_nobusyg"}
	lbFields17 = []string{"lb_count", "lb_balanced", "lb_failed", "lb_imbalance_load", "lb_imbalance_util", "lb_imbalance_task", "lb_imbalance_misfit", "lb_gained", "lb_hot_gained", "lb_nobusyq", "lb_nobusyg"}
	domainTail = []string{"alb_count", "alb_failed", "alb_pushed", "sbe_count", "sbe_balanced", "sbe_pushed", "sbf_count", "sbf_balanced", "sbf_pushed", "ttwu_wake_remote", "ttwu_move_affine", "ttwu_move_balance"}
	// Idle types in the order the kernel prints them: version 15 iterated
	// from CPU_IDLE; version 16 renumbered the enum so that __CPU_NOT_IDLE
	// (busy) comes first, with the same number of fields.
	idleOrder15 = []string{"idle", "busy", "newly_idle"}
	idleOrder16 = []string{"busy", "idle", "newly_idle"}
)

// IdleTypes are the keys of SchedDomain.LB.
var IdleTypes = []string{"idle", "busy", "newly_idle"}

// ParseSchedstat parses the text of /proc/schedstat. It dispatches on the
// version line, never on the kernel release, and refuses versions it does
// not know rather than guess what their columns mean.
func ParseSchedstat(b []byte) (*Schedstat, error) {
	ss := &Schedstat{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 64*1024), 16<<20)
	n := 0
	for sc.Scan() {
		n++
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		switch {
		case f[0] == "version":
			if ss.Version != 0 {
				return nil, fmt.Errorf("line %d: second version line", n)
			}
			if len(f) != 2 {
				return nil, fmt.Errorf("line %d: bad version line %q", n, sc.Text())
			}
			v, err := strconv.Atoi(f[1])
			if err != nil {
				return nil, fmt.Errorf("line %d: bad version %q", n, f[1])
			}
			if v < 15 || v > 17 {
				return nil, fmt.Errorf("line %d: schedstat version %d is not supported (15, 16 and 17 are)", n, v)
			}
			ss.Version = v
		case ss.Version == 0:
			return nil, fmt.Errorf("line %d: %q before the version line", n, f[0])
		case f[0] == "timestamp":
			if len(f) != 2 {
				return nil, fmt.Errorf("line %d: bad timestamp line", n)
			}
			v, err := strconv.ParseUint(f[1], 10, 64)
			if err != nil {
				return nil, fmt.Errorf("line %d: bad timestamp %q", n, f[1])
			}
			ss.Timestamp = v
		case strings.HasPrefix(f[0], "cpu"):
			c, err := parseSchedCPU(f)
			if err != nil {
				return nil, fmt.Errorf("line %d: %w", n, err)
			}
			ss.CPUs = append(ss.CPUs, c)
		case strings.HasPrefix(f[0], "domain"):
			if len(ss.CPUs) == 0 {
				return nil, fmt.Errorf("line %d: domain line before any cpu line", n)
			}
			d, err := parseSchedDomain(ss.Version, f)
			if err != nil {
				return nil, fmt.Errorf("line %d: %w", n, err)
			}
			c := &ss.CPUs[len(ss.CPUs)-1]
			c.Domains = append(c.Domains, d)
		default:
			return nil, fmt.Errorf("line %d: unknown line %q", n, f[0])
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("line %d: %w", n+1, err)
	}
	if ss.Version == 0 {
		return nil, fmt.Errorf("no version line")
	}
	return ss, nil
}

// parseSchedCPU reads "cpuN" and its numbers. Mainline prints 9; kernels
// with Mel Gorman's unmerged select_idle_sibling statistics append more,
// which are ignored.
func parseSchedCPU(f []string) (SchedCPU, error) {
	id, err := strconv.Atoi(strings.TrimPrefix(f[0], "cpu"))
	if err != nil || id < 0 {
		return SchedCPU{}, fmt.Errorf("bad cpu %q", f[0])
	}
	if len(f)-1 < len(schedCPUFields) {
		return SchedCPU{}, fmt.Errorf("%s: %d numbers, want %d", f[0], len(f)-1, len(schedCPUFields))
	}
	nums, err := parseUints(f[1 : 1+len(schedCPUFields)])
	if err != nil {
		return SchedCPU{}, fmt.Errorf("%s: %w", f[0], err)
	}
	c := SchedCPU{ID: id, Fields: map[string]uint64{}}
	for i, name := range schedCPUFields {
		if name != "" {
			c.Fields[name] = nums[i]
		}
	}
	return c, nil
}

// parseSchedDomain reads one domain line. The layout is told by its
// length: "domainN MASK" + 36 numbers (versions 15 and 16) or "domainN
// NAME MASK" + 45 numbers (17). A version 16 kernel built from the middle
// of the tip series that led to 17 printed the name or the 45 numbers
// already, so version 16 takes any of the four shapes.
func parseSchedDomain(version int, f []string) (SchedDomain, error) {
	idx, err := strconv.Atoi(strings.TrimPrefix(f[0], "domain"))
	if err != nil || idx < 0 {
		return SchedDomain{}, fmt.Errorf("bad domain %q", f[0])
	}
	rest := f[1:]
	var named bool
	var lb []string
	switch len(rest) {
	case 1 + 3*8 + 12:
		lb = lbFields15
	case 2 + 3*8 + 12:
		named, lb = true, lbFields15
	case 1 + 3*11 + 12:
		lb = lbFields17
	case 2 + 3*11 + 12:
		named, lb = true, lbFields17
	default:
		return SchedDomain{}, fmt.Errorf("%s: %d fields, want 37 (version 15, 16) or 47 (version 17)", f[0], len(rest))
	}
	if ok := (version == 15 && !named && len(lb) == 8) || version == 16 || (version == 17 && named && len(lb) == 11); !ok {
		return SchedDomain{}, fmt.Errorf("%s: %d fields do not fit schedstat version %d", f[0], len(rest), version)
	}
	d := SchedDomain{Index: idx, LB: map[string]map[string]uint64{}, Fields: map[string]uint64{}}
	if named {
		d.Name, rest = rest[0], rest[1:]
	}
	d.Mask, rest = rest[0], rest[1:]
	if !isCPUMask(d.Mask) {
		return SchedDomain{}, fmt.Errorf("%s: bad cpumask %q", f[0], d.Mask)
	}
	nums, err := parseUints(rest)
	if err != nil {
		return SchedDomain{}, fmt.Errorf("%s: %w", f[0], err)
	}
	order := idleOrder16
	if version == 15 {
		order = idleOrder15
	}
	for g, it := range order {
		m := map[string]uint64{}
		for i, name := range lb {
			m[name] = nums[g*len(lb)+i]
		}
		d.LB[it] = m
	}
	for i, name := range domainTail {
		d.Fields[name] = nums[3*len(lb)+i]
	}
	return d, nil
}

// isCPUMask tells whether s looks like the kernel's %*pb: hex digits in
// comma-separated groups.
func isCPUMask(s string) bool {
	if s == "" {
		return false
	}
	for _, g := range strings.Split(s, ",") {
		if g == "" {
			return false
		}
		for _, c := range g {
			if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
				return false
			}
		}
	}
	return true
}

// sample returns the counters under Monitor keys: "timestamp" (jiffies),
// "cpu0.sched_count", "cpu.sched_count" (all CPUs),
// "cpu0.domain0.lb_count.idle", "cpu0.domain0.alb_count", and the domain
// level over all CPUs, "domain0.lb_count.idle".
func (ss *Schedstat) sample() map[string]float64 {
	m := map[string]float64{"timestamp": float64(ss.Timestamp)}
	for _, c := range ss.CPUs {
		cp := "cpu" + strconv.Itoa(c.ID) + "."
		for k, v := range c.Fields {
			m[cp+k] = float64(v)
			m["cpu."+k] += float64(v)
		}
		for _, d := range c.Domains {
			dp := "domain" + strconv.Itoa(d.Index) + "."
			for it, fields := range d.LB {
				for k, v := range fields {
					m[cp+dp+k+"."+it] = float64(v)
					m[dp+k+"."+it] += float64(v)
				}
			}
			for k, v := range d.Fields {
				m[cp+dp+k] = float64(v)
				m[dp+k] += float64(v)
			}
		}
	}
	return m
}

// text returns what a Monitor keeps of the file beside the numbers: the
// version ("version": "17") and each CPU's domains, with their span and,
// from version 17, their name ("cpu0.domain0.span": "00000003",
// "cpu0.domain0.name": "SMT"), so that a delta can be laid out as the
// file itself (see SchedstatLayout).
func (ss *Schedstat) text() map[string]string {
	m := map[string]string{"version": strconv.Itoa(ss.Version)}
	for _, c := range ss.CPUs {
		for _, d := range c.Domains {
			p := "cpu" + strconv.Itoa(c.ID) + ".domain" + strconv.Itoa(d.Index) + "."
			m[p+"span"] = d.Mask
			if d.Name != "" {
				m[p+"name"] = d.Name
			}
		}
	}
	return m
}

// SchedstatLayout returns, for a version of /proc/schedstat, the Monitor
// key of every number of a cpuN line and of a domainN line, in the order
// the kernel prints them: "sched_count" (under "cpuN.") and
// "lb_count.idle" or "alb_count" (under "cpuN.domainM."). The cpu line's
// second number, a historic field that is always 0, has the key "". ok is
// false for a version ParseSchedstat does not read.
func SchedstatLayout(version int) (cpu, domain []string, ok bool) {
	lb, order := lbFields17, idleOrder16
	switch version {
	case 15:
		lb, order = lbFields15, idleOrder15
	case 16:
		lb = lbFields15
	case 17:
	default:
		return nil, nil, false
	}
	for _, it := range order {
		for _, f := range lb {
			domain = append(domain, f+"."+it)
		}
	}
	domain = append(domain, domainTail...)
	return append([]string(nil), schedCPUFields...), domain, true
}

// domainNames says which name each domain level has ("domain0=SMT
// domain1=MC"), from the first CPU that has names; "" before version 17.
func (ss *Schedstat) domainNames() string {
	for _, c := range ss.CPUs {
		var parts []string
		for _, d := range c.Domains {
			if d.Name != "" {
				parts = append(parts, fmt.Sprintf("domain%d=%s", d.Index, d.Name))
			}
		}
		if len(parts) > 0 {
			return strings.Join(parts, " ")
		}
	}
	return ""
}
