package report

import (
	"fmt"
	"io"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/kdelta/kdelta/internal/counter"
	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/stats"
)

// showSchedstat prints the schedstat monitors of the runs that have
// values, each run's on its own (a window is one sample, as the mail's
// attachment is), as WriteSchedstat lays them out. With windowsOnly, a
// whole-run schedstat monitor is left out: kdelta run takes one on every
// run by default, which show summarises on one line instead.
func showSchedstat(w io.Writer, rs []*result.Run, windowsOnly bool) {
	for _, r := range rs {
		for _, m := range r.Monitors {
			if m.Name != "schedstat" || m.Unavailable != "" || (windowsOnly && m.Window == "") {
				continue
			}
			WriteSchedstat(w, fmt.Sprintf("schedstat%s, %s", m.Window, runLabel(r)), m)
		}
	}
}

// WriteSchedstat prints the change of /proc/schedstat that m holds the
// way seed mail 003's attachment shows the file: a cpuN line per CPU with
// its domainN lines after it, every number where the kernel prints it
// (the version's own layout, see counter.SchedstatLayout), then the totals
// over all CPUs by name. Those lines parse as /proc/schedstat again; like
// the kernel's they are longer than a report's 100 columns, which is the
// price of keeping them as the kernel prints them. A Monitor recorded
// without its Text (before kdelta kept the layout) gets the totals only.
func WriteSchedstat(w io.Writer, title string, m result.Monitor) {
	version, _ := strconv.Atoi(m.Text["version"])
	cpuKeys, domainKeys, ok := counter.SchedstatLayout(version)
	if !ok {
		fmt.Fprintf(w, "  %s: the change over all CPUs (recorded without the file's layout):\n", title)
		writeSchedstatTotals(w, m, nil)
		writeSchedstatNotes(w, m)
		return
	}
	fmt.Fprintf(w, "  %s: the change, laid out as /proc/schedstat version %d\n", title, version)
	fmt.Fprintln(w, "    (cpuN: yld_count 0 sched_count sched_goidle ttwu_count ttwu_local rq_cpu_time run_delay pcount;")
	idle := "busy, idle, newly idle"
	if version == 15 {
		idle = "idle, busy, newly idle"
	}
	fmt.Fprintf(w, "    domainN: the lb_* counters for %s, then alb_*, sbe_*, sbf_*, ttwu_*)\n", idle)
	fmt.Fprintf(w, "    version %d\n", version)
	if v, ok := m.Values["timestamp"]; ok {
		fmt.Fprintf(w, "    timestamp %s\n", integer(v))
	}
	for _, cpu := range schedstatCPUs(m) {
		p := "cpu" + strconv.Itoa(cpu) + "."
		line := []string{"cpu" + strconv.Itoa(cpu)}
		for _, k := range cpuKeys {
			if k == "" {
				line = append(line, "0")
				continue
			}
			line = append(line, integer(m.Values[p+k]))
		}
		fmt.Fprintf(w, "    %s\n", strings.Join(line, " "))
		for _, d := range schedstatDomains(m, cpu) {
			dp := p + "domain" + strconv.Itoa(d) + "."
			line := []string{"domain" + strconv.Itoa(d)}
			if name := m.Text[dp+"name"]; name != "" {
				line = append(line, name)
			}
			line = append(line, m.Text[dp+"span"])
			for _, k := range domainKeys {
				// Per-CPU domain counters that did not change are not
				// kept (Delta); a missing one is 0.
				line = append(line, integer(m.Values[dp+k]))
			}
			fmt.Fprintf(w, "    %s\n", strings.Join(line, " "))
		}
	}
	writeSchedstatTotals(w, m, domainKeys)
	writeSchedstatNotes(w, m)
}

// schedstatCPUTotals are the cpu line's counters in the order the totals
// line names them, the run-queue work first.
var schedstatCPUTotals = []string{"sched_count", "sched_goidle", "ttwu_count", "ttwu_local", "rq_cpu_time", "run_delay", "pcount", "yld_count"}

// writeSchedstatTotals prints the sums over all CPUs by name: every cpu
// counter, and for each domain level those that changed, the lb_*
// counters of the three idle types together, wrapped to the report's
// width. domainKeys are the layout's (nil: the keys m has).
func writeSchedstatTotals(w io.Writer, m result.Monitor, domainKeys []string) {
	var parts []string
	for _, k := range schedstatCPUTotals {
		v, ok := m.Values["cpu."+k]
		if !ok {
			continue
		}
		switch k {
		case "rq_cpu_time", "run_delay":
			parts = append(parts, k+" "+nanoseconds(v))
		default:
			parts = append(parts, k+" "+stats.WholeNum(v))
		}
	}
	if len(parts) > 0 {
		wrapList(w, "    all CPUs: ", parts)
	}
	for _, d := range schedstatLevels(m) {
		dp := "domain" + strconv.Itoa(d) + "."
		keys := domainKeys
		if keys == nil {
			for k := range m.Values {
				if strings.HasPrefix(k, dp) {
					keys = append(keys, strings.TrimPrefix(k, dp))
				}
			}
			sort.Strings(keys)
		}
		// lb_count.idle, lb_count.busy, ... as "lb_count 1/2/3", in the
		// order of counter.IdleTypes whatever the version's.
		var parts []string
		done := map[string]bool{}
		for _, k := range keys {
			name, _, isLB := strings.Cut(k, ".")
			switch {
			case done[name]:
			case isLB:
				var vs []string
				changed := false
				for _, it := range counter.IdleTypes {
					v := m.Values[dp+name+"."+it]
					changed = changed || v != 0
					vs = append(vs, stats.WholeNum(v))
				}
				if changed {
					parts = append(parts, name+" "+strings.Join(vs, "/"))
				}
			case m.Values[dp+k] != 0:
				parts = append(parts, k+" "+stats.WholeNum(m.Values[dp+k]))
			}
			done[name] = true
		}
		if len(parts) == 0 {
			parts = []string{"no change"}
		}
		wrapList(w, fmt.Sprintf("    domain%d%s, all CPUs (lb_* %s): ", d, levelName(m, d), strings.Join(idleWords, "/")), parts)
	}
}

// idleWords name counter.IdleTypes in a report.
var idleWords = []string{"idle", "busy", "newly idle"}

// nanoseconds formats a time counted in ns in the unit that suits it.
func nanoseconds(v float64) string {
	switch a := math.Abs(v); {
	case a >= 1e9:
		return Num(v/1e9) + " s"
	case a >= 1e6:
		return Num(v/1e6) + " ms"
	case a >= 1e3:
		return Num(v/1e3) + " us"
	}
	return stats.WholeNum(v) + " ns"
}

// writeSchedstatNotes prints the monitor's notes but those the layout
// already says: the version, the domain names, and the per-CPU domain
// counters left out of the record because they did not change (printed
// as the 0 they are).
func writeSchedstatNotes(w io.Writer, m result.Monitor) {
	for _, n := range m.Notes {
		if strings.HasPrefix(n, "schedstat version ") || strings.HasPrefix(n, "domain names: ") || strings.Contains(n, " per-CPU domain counters that did not change left out") {
			continue
		}
		fmt.Fprintf(w, "    note: %s\n", n)
	}
}

// wrapList prints head and the parts separated by commas, continuing on
// lines indented under head's first word when a line would pass 100
// columns.
func wrapList(w io.Writer, head string, parts []string) {
	const width = 100
	cont := strings.Repeat(" ", len(head)-len(strings.TrimLeft(head, " "))+2)
	line := head
	for i, p := range parts {
		if i < len(parts)-1 {
			p += ","
		}
		switch {
		case line == head:
			line += p
		case len(line)+1+len(p) > width:
			fmt.Fprintln(w, line)
			line = cont + p
		default:
			line += " " + p
		}
	}
	fmt.Fprintln(w, line)
}

var (
	schedstatCPUKey    = regexp.MustCompile(`^cpu(\d+)\.`)
	schedstatDomainKey = regexp.MustCompile(`^cpu(\d+)\.domain(\d+)\.span$`)
	schedstatLevelKey  = regexp.MustCompile(`^domain(\d+)\.`)
)

// schedstatCPUs returns the CPUs m has counters of, in order.
func schedstatCPUs(m result.Monitor) []int {
	seen := map[int]bool{}
	for k := range m.Values {
		if g := schedstatCPUKey.FindStringSubmatch(k); g != nil {
			n, _ := strconv.Atoi(g[1])
			seen[n] = true
		}
	}
	return sortedInts(seen)
}

// schedstatDomains returns the domain levels the file printed for cpu.
func schedstatDomains(m result.Monitor, cpu int) []int {
	seen := map[int]bool{}
	for k := range m.Text {
		if g := schedstatDomainKey.FindStringSubmatch(k); g != nil && g[1] == strconv.Itoa(cpu) {
			n, _ := strconv.Atoi(g[2])
			seen[n] = true
		}
	}
	return sortedInts(seen)
}

// schedstatLevels returns the domain levels m has totals of.
func schedstatLevels(m result.Monitor) []int {
	seen := map[int]bool{}
	for k := range m.Values {
		if g := schedstatLevelKey.FindStringSubmatch(k); g != nil {
			n, _ := strconv.Atoi(g[1])
			seen[n] = true
		}
	}
	return sortedInts(seen)
}

// levelName is " NAME" for a domain level whose CPUs all call it NAME
// (version 17), else "".
func levelName(m result.Monitor, level int) string {
	name := ""
	suffix := ".domain" + strconv.Itoa(level) + ".name"
	for k, v := range m.Text {
		if strings.HasSuffix(k, suffix) {
			if name != "" && name != v {
				return ""
			}
			name = v
		}
	}
	if name == "" {
		return ""
	}
	return " " + name
}

func sortedInts(set map[int]bool) []int {
	out := make([]int, 0, len(set))
	for n := range set {
		out = append(out, n)
	}
	sort.Ints(out)
	return out
}

// integer writes a counter's change as the kernel writes a counter.
func integer(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
