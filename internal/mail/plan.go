package mail

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/kdelta/kdelta/internal/workload"
)

// A Job is one kdelta job file of the experiment a mail describes: the
// mapped commands that share a placement (FIFO priority, CPUs, events).
type Job struct {
	Repeat     int
	FIFO       int
	CPUs       string
	Events     string
	SystemWide bool
	// Set are the knob settings the mapped commands need.
	Set []string
	// Workloads are the specs, each with the commands it stands for.
	Workloads []PlanWorkload
	// Variants are the mail's variants, for kernels given by the user.
	Variants []string
}

// A PlanWorkload is one [[workload]] of a job.
type PlanWorkload struct {
	Spec     string
	Commands []*Command
}

// defaultRepeat is the number of runs of a plan when the mail states none.
const defaultRepeat = 10

// Plan groups the mapped commands of the thread into jobs, one per
// placement, in the order the mail shows them; commands that cannot be
// mapped are left out (Reading says why).
func Plan(a *Analysis) []*Job {
	var jobs []*Job
	byKey := map[string]*Job{}
	for _, s := range a.Sections {
		for _, c := range s.Commands {
			m := c.Map
			if m.Cannot != "" || m.Spec == "" {
				continue
			}
			key := fmt.Sprintf("%d|%s|%s|%v", m.FIFO, m.CPUs, m.Events, m.SystemWide)
			j := byKey[key]
			if j == nil {
				j = &Job{FIFO: m.FIFO, CPUs: m.CPUs, Events: m.Events, SystemWide: m.SystemWide}
				byKey[key] = j
				jobs = append(jobs, j)
			}
			for _, k := range m.Set {
				if !contains(j.Set, k) {
					j.Set = append(j.Set, k)
				}
			}
			if m.Repeat > j.Repeat {
				j.Repeat = m.Repeat
			}
			if c.Variant != "" && !contains(j.Variants, c.Variant) {
				j.Variants = append(j.Variants, c.Variant)
			}
			found := false
			for i := range j.Workloads {
				if j.Workloads[i].Spec == m.Spec {
					j.Workloads[i].Commands = append(j.Workloads[i].Commands, c)
					found = true
				}
			}
			if !found {
				j.Workloads = append(j.Workloads, PlanWorkload{Spec: m.Spec, Commands: []*Command{c}})
			}
		}
	}
	for _, j := range jobs {
		if j.Repeat == 0 {
			j.Repeat = defaultRepeat
		}
	}
	return jobs
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

var intRE = regexp.MustCompile(`^-?\d+$`)

// TOML writes j as a job file (internal/job's format), with comments
// saying which command of the mail each workload stands for. kernels, when
// given, become [[variant]]s to boot (kdelta vm -f).
func (j *Job) TOML(mailName string, kernels []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# The experiment of %s, as kdelta reproduce maps it.\n", mailName)
	if len(j.Variants) > 0 {
		fmt.Fprintf(&b, "# The mail's variants: %s.\n", strings.Join(j.Variants, "; "))
	}
	if len(kernels) == 0 {
		b.WriteString("# Run it on each kernel (kdelta run -f FILE -o SET.json) and compare the sets.\n")
	}
	fmt.Fprintf(&b, "description = %s\n", strconv.Quote("reproduce "+mailName))
	fmt.Fprintf(&b, "repeat = %d\nwarmup = 1\n", j.Repeat)
	if j.FIFO > 0 {
		fmt.Fprintf(&b, "fifo = %d\n", j.FIFO)
	}
	if j.CPUs != "" {
		fmt.Fprintf(&b, "cpus = %s\n", strconv.Quote(j.CPUs))
	}
	if j.Events != "" {
		fmt.Fprintf(&b, "events = %s\n", strconv.Quote(j.Events))
	}
	var appendArgs []string
	if len(j.Set) > 0 && len(kernels) > 0 {
		// A booted kernel takes its knobs on its command line.
		for _, k := range j.Set {
			if a, ok := bootParams[k]; ok {
				appendArgs = append(appendArgs, a)
			} else {
				fmt.Fprintf(&b, "# %s: set it inside the guest; no boot parameter known for it\n", k)
			}
		}
	} else if len(j.Set) > 0 {
		var q []string
		for _, k := range j.Set {
			q = append(q, strconv.Quote(k))
		}
		fmt.Fprintf(&b, "set = [%s]\n", strings.Join(q, ", "))
	}
	if j.SystemWide {
		b.WriteString("# perf stat -a in the mail: kdelta run -a counts system-wide\n")
	}
	for _, w := range j.Workloads {
		b.WriteString("\n[[workload]]\n")
		for _, c := range w.Commands {
			fmt.Fprintf(&b, "# line %d: %s\n", c.Line, oneLine(c.Text))
			for _, n := range c.Map.Notes {
				fmt.Fprintf(&b, "#   %s\n", n)
			}
		}
		name, ps, _ := strings.Cut(w.Spec, ":")
		fmt.Fprintf(&b, "name = %s\n", strconv.Quote(name))
		if ps != "" {
			var kv []string
			for _, p := range splitParams(ps) {
				k, v, _ := strings.Cut(p, "=")
				v = strings.Trim(v, "'")
				if intRE.MatchString(v) || v == "true" || v == "false" {
					kv = append(kv, k+" = "+v)
				} else {
					kv = append(kv, k+" = "+strconv.Quote(v))
				}
			}
			sort.Strings(kv)
			fmt.Fprintf(&b, "params = { %s }\n", strings.Join(kv, ", "))
		}
	}
	for i, k := range kernels {
		name := fmt.Sprintf("kernel%d", i+1)
		if i < len(j.Variants) {
			name = slugName(j.Variants[i])
		}
		fmt.Fprintf(&b, "\n[[variant]]\nname = %s\nkernel = %s\n", strconv.Quote(name), strconv.Quote(k))
		if len(appendArgs) > 0 {
			fmt.Fprintf(&b, "append = %s\n", strconv.Quote(strings.Join(appendArgs, " ")))
		}
	}
	return b.String()
}

// bootParams are the boot parameters of the knobs a plan sets.
var bootParams = map[string]string{"/sys/kernel/rcu_expedited=0": "rcupdate.rcu_expedited=0"}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// splitParams splits "a=1,cmd='x, y'" at the commas outside quotes.
func splitParams(s string) []string {
	var out []string
	q := false
	start := 0
	for i, r := range s {
		switch {
		case r == '\'':
			q = !q
		case r == ',' && !q:
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

func slugName(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '.' || r == '_' {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(r)
			dash = false
		} else {
			dash = true
		}
	}
	return b.String()
}

// Quick shrinks j to a quick check: at most three runs, and each
// workload's size parameters those of kdelta run --quick's suite (the
// mail's placement and other parameters kept).
func (j *Job) Quick() {
	specs := workload.QuickSpecs()
	if j.Repeat > 3 {
		j.Repeat = 3
	}
	for i, w := range j.Workloads {
		name, ps, _ := strings.Cut(w.Spec, ":")
		for _, sp := range specs {
			qname, qps, _ := strings.Cut(sp, ":")
			if qname != name {
				continue
			}
			kv := map[string]string{}
			var order []string
			if ps != "" {
				for _, p := range splitParams(ps) {
					k, v, _ := strings.Cut(p, "=")
					kv[k] = v
					order = append(order, k)
				}
			}
			for _, p := range splitParams(qps) {
				k, v, _ := strings.Cut(p, "=")
				if _, ok := kv[k]; !ok {
					order = append(order, k)
				}
				kv[k] = v
			}
			sort.Strings(order)
			var parts []string
			for _, k := range order {
				parts = append(parts, k+"="+kv[k])
			}
			j.Workloads[i].Spec = name + ":" + strings.Join(parts, ",")
		}
	}
}
