package mail

import (
	"regexp"
	"strconv"
	"strings"
)

// A Command is a command line the mail shows (after a prompt, or a known
// tool's line), or a run its prose describes ("100 synchronize_rcu()
// calls ... 10 runs"), with what kdelta runs in its place.
type Command struct {
	Line int
	Text string
	// Prose is set for a run described in words rather than shown.
	Prose   bool
	Variant string
	Map     Mapping
}

// promptRE matches a shell prompt before a command: "# ", "$ ", "~# ",
// "root@host:~# ".
var promptRE = regexp.MustCompile(`^\s*(?:[\w.@:/~-]*[#$]|[#$])\s+(\S.*)$`)

// tools are the programs whose lines are commands even without a prompt.
var tools = []string{"perf", "stress-ng", "hackbench", "chrt", "taskset", "numactl", "pgbench", "sysbench", "schbench", "cyclictest", "kdelta"}

var programRE = regexp.MustCompile(`^(?:\./|/)?[a-z][\w.+-]*(?:/[\w.+-]+)*$`)

// commandOf returns the command a line holds, or "".
func commandOf(l string) string {
	t := strings.TrimSpace(l)
	if m := promptRE.FindStringSubmatch(l); m != nil {
		f := strings.Fields(m[1])
		if len(f) > 0 && programRE.MatchString(f[0]) && !strings.HasSuffix(f[0], ".") {
			return strings.TrimSpace(m[1])
		}
		return ""
	}
	f := strings.Fields(t)
	if len(f) < 2 {
		if len(f) == 1 && strings.HasPrefix(f[0], "./") && programRE.MatchString(f[0]) {
			return t
		}
		return ""
	}
	opt := false
	for _, x := range f[1:] {
		if strings.HasPrefix(x, "-") && len(x) > 1 {
			opt = true
		}
	}
	for _, tool := range tools {
		if f[0] == tool && (opt || len(f) <= 3 && tool == "perf" && programRE.MatchString(f[1])) {
			return t
		}
	}
	if strings.HasPrefix(f[0], "./") && programRE.MatchString(f[0]) && strings.HasPrefix(f[1], "-") {
		return t
	}
	return ""
}

func newCommand(l Line, text, variant string) *Command {
	c := &Command{Line: l.N, Text: text, Variant: variant}
	c.Map = mapCommand(text)
	return c
}

// A Mapping is what kdelta runs for a command: a workload spec and the
// placement, or why it cannot.
type Mapping struct {
	// Spec is the workload with its parameters ("messaging:groups=20,...").
	Spec string
	// FIFO is the SCHED_FIFO priority (chrt -f), 0 for none; CPUs the
	// CPU list (taskset -c), "" for none.
	FIFO int
	CPUs string
	// Repeat is the number of runs the mail states, 0 when it does not.
	Repeat int
	// Events are perf stat's -e events; SystemWide its -a.
	Events     string
	SystemWide bool
	// Notes say what of the command the spec does not carry, or how it
	// differs.
	Notes []string
	// Cannot says why the command cannot be mapped, "" when it is.
	Cannot string
	// Profile is set for perf record/report/annotate: kdelta run --profile.
	Profile bool
	// Set are knob settings the run needs to measure what the mail did
	// (KNOB=VALUE, a job's set).
	Set []string
}

// words splits a command line into words, honouring simple quotes.
func words(s string) []string {
	var out []string
	var cur strings.Builder
	q := rune(0)
	in := false
	for _, r := range s {
		switch {
		case q != 0 && r == q:
			q = 0
		case q == 0 && (r == '\'' || r == '"'):
			q, in = r, true
		case q == 0 && (r == ' ' || r == '\t'):
			if in {
				out = append(out, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteRune(r)
			in = true
		}
	}
	if in {
		out = append(out, cur.String())
	}
	return out
}

// mapCommand maps a command line onto a kdelta workload.
func mapCommand(text string) Mapping {
	var m Mapping
	w := words(text)
	// Wrappers first: chrt, taskset, numactl, perf stat, nice, time.
	for len(w) > 0 {
		switch w[0] {
		case "chrt":
			w = w[1:]
			fifo := false
			for len(w) > 0 && strings.HasPrefix(w[0], "-") {
				if w[0] == "-f" || w[0] == "--fifo" {
					fifo = true
				} else if w[0] == "-r" || w[0] == "--rr" {
					m.Notes = append(m.Notes, "chrt -r (SCHED_RR): kdelta runs SCHED_FIFO (--fifo)")
					fifo = true
				}
				w = w[1:]
			}
			if len(w) > 0 {
				if p, err := strconv.Atoi(w[0]); err == nil {
					if fifo {
						m.FIFO = p
					}
					w = w[1:]
				}
			}
			continue
		case "taskset":
			w = w[1:]
			if len(w) > 0 && (w[0] == "-c" || w[0] == "--cpu-list") && len(w) > 1 {
				m.CPUs = w[1]
				w = w[2:]
			} else if len(w) > 1 {
				m.Notes = append(m.Notes, "taskset mask "+w[0]+": give kdelta --cpus the CPU list")
				w = w[1:]
			}
			continue
		case "numactl":
			w = w[1:]
			for len(w) > 0 && strings.HasPrefix(w[0], "-") {
				if strings.HasPrefix(w[0], "--physcpubind=") || strings.HasPrefix(w[0], "-C") {
					m.CPUs = strings.TrimPrefix(strings.TrimPrefix(w[0], "--physcpubind="), "-C")
				}
				w = w[1:]
			}
			continue
		case "time", "nice", "sudo":
			w = w[1:]
			continue
		case "perf":
			if len(w) > 1 && w[1] == "stat" {
				w = m.perfStat(w[2:])
				continue
			}
			if len(w) > 1 && (w[1] == "record" || w[1] == "report" || w[1] == "annotate" || w[1] == "top") {
				m.Profile = true
				m.Cannot = "perf " + w[1] + " is a profile: kdelta run --profile records one (kdelta profile show|diff)"
				return m
			}
		}
		break
	}
	if len(w) == 0 {
		m.Cannot = "no command after the wrappers"
		return m
	}
	prog := w[0]
	args := w[1:]
	base := prog[strings.LastIndex(prog, "/")+1:]
	switch {
	case prog == "perf" && len(args) >= 2 && args[0] == "bench":
		m.perfBench(args[1:])
	case base == "hackbench":
		m.hackbench(args)
	case base == "stress-ng":
		m.stressNG(args)
	case base == "context_switch":
		m.contextSwitch(args)
	case base == "null_syscall":
		m.Spec = "syscall:soak=250ms,syscall=getppid"
		m.Notes = append(m.Notes, "null_syscall timed getppid() until v5.14, gettid() since: give syscall=gettid for a newer selftest")
		for _, a := range args {
			m.Notes = append(m.Notes, "argument "+a+" not mapped")
		}
	case base == "pgbench":
		m.pgbench(args)
	case base == "sysbench":
		m.sysbench(args)
	default:
		m.Spec = "command:cmd=" + quoteParam(strings.Join(w, " "))
		m.Notes = append(m.Notes, "no built-in workload: run as a command (wall time only unless its output is perf bench, stress-ng or hackbench)")
	}
	return m
}

func quoteParam(s string) string {
	if strings.ContainsAny(s, ", '=:") {
		return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
	}
	return s
}

// perfStat reads perf stat's options and returns the measured command.
func (m *Mapping) perfStat(w []string) []string {
	for len(w) > 0 {
		a := w[0]
		switch {
		case a == "--":
			return w[1:]
		case a == "-a" || a == "--all-cpus":
			m.SystemWide = true
		case a == "-e" || a == "--event":
			if len(w) > 1 {
				m.Events = w[1]
				if w[1] == "cs" {
					m.Events = "context-switches"
				}
				w = w[1:]
			}
		case a == "-r" || a == "--repeat":
			if len(w) > 1 {
				m.Repeat, _ = strconv.Atoi(w[1])
				w = w[1:]
			}
		case strings.HasPrefix(a, "--repeat="):
			m.Repeat, _ = strconv.Atoi(strings.TrimPrefix(a, "--repeat="))
		case strings.HasPrefix(a, "-"):
			// Other options of perf stat carry no argument that matters here.
		default:
			return w
		}
		w = w[1:]
	}
	return nil
}

// opts reads short options with values: "-g 20 -l 5000 -t".
func opts(args []string, valued string) (map[string]string, []string) {
	o := map[string]string{}
	var rest []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a, "-") || a == "-" {
			rest = append(rest, a)
			continue
		}
		k, v, has := strings.Cut(a, "=")
		if !has && strings.Contains(valued, " "+k+" ") && i+1 < len(args) {
			v = args[i+1]
			i++
		}
		o[k] = v
	}
	return o, rest
}

func pick(o map[string]string, keys ...string) (string, bool) {
	for _, k := range keys {
		if v, ok := o[k]; ok {
			return v, true
		}
	}
	return "", false
}

func (m *Mapping) perfBench(args []string) {
	if len(args) < 2 {
		m.Cannot = "perf bench without a collection and a benchmark"
		return
	}
	o, _ := opts(args[2:], " -g --group -l --nr_loops --loop -f --fds -r -s ")
	p := params{}
	switch args[0] + " " + args[1] {
	case "sched messaging":
		p.set("groups", o, "-g", "--group")
		p.set("loops", o, "-l", "--nr_loops")
		if _, ok := pick(o, "-t", "--thread"); ok {
			p.add("mode", "thread")
		}
		if _, ok := pick(o, "-p", "--pipe"); ok {
			p.add("ipc", "pipe")
		}
		m.Spec = "messaging" + p.spec()
	case "sched pipe":
		p.set("loops", o, "-l", "--loop")
		if _, ok := pick(o, "-T", "--threaded"); ok {
			p.add("mode", "thread")
		}
		m.Spec = "pipe" + p.spec()
	case "syscall basic":
		p.set("calls", o, "-l", "--loop")
		m.Spec = "syscall" + p.spec()
	default:
		m.Spec = "command:parse=perf-bench,cmd=" + quoteParam("perf bench "+strings.Join(args, " "))
		m.Notes = append(m.Notes, "no built-in workload for perf bench "+args[0]+" "+args[1]+": run as a command, its figures read")
	}
}

func (m *Mapping) hackbench(args []string) {
	o, _ := opts(args, " -g --groups -l --loops -f --fds -s --datasize ")
	p := params{}
	p.set("groups", o, "-g", "--groups")
	p.set("loops", o, "-l", "--loops")
	p.set("fds", o, "-f", "--fds")
	p.set("size", o, "-s", "--datasize")
	if _, ok := pick(o, "-T", "--threads"); ok {
		p.add("mode", "thread")
	}
	if _, ok := pick(o, "-p", "--pipe"); ok {
		p.add("ipc", "pipe")
	}
	m.Spec = "messaging" + p.spec()
	m.Notes = append(m.Notes, "hackbench's defaults (-g 10 -l 100 -f 20 -s 100) are the messaging workload's")
}

func (m *Mapping) stressNG(args []string) {
	o, _ := opts(args, " --kill --kill-ops -t --timeout --taskset ")
	if v, ok := o["--kill"]; ok {
		p := params{}
		if v != "" && v != "1" {
			p.add("instances", v)
		}
		p.set("ops", o, "--kill-ops")
		m.Spec = "kill" + p.spec()
		if t, ok := pick(o, "-t", "--timeout"); ok {
			m.Notes = append(m.Notes, "stress-ng --timeout "+t+": kdelta's kill runs a count of bogo-ops (ops), not a time")
		}
		if c, ok := o["--taskset"]; ok {
			m.CPUs = c
		}
		return
	}
	m.Spec = "command:parse=stress-ng,cmd=" + quoteParam("stress-ng "+strings.Join(args, " "))
	m.Notes = append(m.Notes, "no built-in workload for this stressor: run as a command, its bogo-ops read")
}

func (m *Mapping) contextSwitch(args []string) {
	o, _ := opts(args, " -t --timeout --test ")
	p := params{}
	if _, ok := pick(o, "-p", "--process"); ok {
		p.add("mode", "process")
	}
	if _, ok := o["--no-fp"]; ok {
		p.add("fp", "false")
	}
	p.set("test", o, "--test")
	p.set("timeout", o, "-t", "--timeout")
	for _, k := range []string{"--no-altivec", "--no-vector"} {
		if _, ok := o[k]; ok {
			m.Notes = append(m.Notes, k+": kdelta's context_switch touches no vector registers, as the flag asks")
		}
	}
	m.Spec = "context_switch" + p.spec()
	m.Notes = append(m.Notes, "placement: both threads on the CPU the selftest's pick_online_cpu() picks (cpus=auto)")
}

func (m *Mapping) pgbench(args []string) {
	o, _ := opts(args, " -c --client -j --jobs -T --time -s --scale -M --protocol -b --builtin ")
	p := params{}
	p.set("clients", o, "-c", "--client")
	p.set("jobs", o, "-j", "--jobs")
	if v, ok := pick(o, "-T", "--time"); ok {
		p.add("duration", v+"s")
	}
	p.set("scale", o, "-s", "--scale")
	p.set("protocol", o, "-M", "--protocol")
	if _, ok := pick(o, "-S", "--select-only"); ok {
		p.add("script", "select-only")
	}
	if _, ok := pick(o, "-N", "--skip-some-updates"); ok {
		p.add("script", "simple-update")
	}
	m.Spec = "pgbench" + p.spec()
	m.Notes = append(m.Notes, "against a private PostgreSQL server kdelta starts, not the mail's")
}

func (m *Mapping) sysbench(args []string) {
	o, rest := opts(args, " ")
	p := params{}
	for _, r := range rest {
		switch r {
		case "oltp_read_only", "oltp_read_write", "oltp_point_select":
			p.add("test", strings.TrimPrefix(r, "oltp_"))
		}
	}
	for k, v := range o {
		switch k {
		case "--threads":
			p.add("threads", v)
		case "--time":
			p.add("duration", v+"s")
		case "--tables":
			p.add("tables", v)
		case "--table-size", "--table_size":
			p.add("table_size", v)
		}
	}
	m.Spec = "sysbench" + p.spec()
	m.Notes = append(m.Notes, "against a private PostgreSQL server kdelta starts, not the mail's")
}

// params are a workload's parameters in the order they were added.
type params struct{ kv [][2]string }

func (p *params) add(k, v string) {
	for i := range p.kv {
		if p.kv[i][0] == k {
			p.kv[i][1] = v
			return
		}
	}
	p.kv = append(p.kv, [2]string{k, v})
}

func (p *params) set(k string, o map[string]string, keys ...string) {
	if v, ok := pick(o, keys...); ok && v != "" {
		p.add(k, v)
	}
}

func (p params) spec() string {
	if len(p.kv) == 0 {
		return ""
	}
	var s []string
	for _, kv := range p.kv {
		s = append(s, kv[0]+"="+quoteParam(kv[1]))
	}
	return ":" + strings.Join(s, ",")
}

// Runs described in words: what kdelta maps them to.
var (
	rcuProseRE    = regexp.MustCompile(`(?i)(\d+)\s+synchronize_rcu\(\)\s+calls(?:.*?(\d+)\s+runs)?`)
	bridgeProseRE = regexp.MustCompile(`(?i)(\d+)\s+iterations\s+of\s+bridge\s+add/configure/delete`)
	killProseRE   = regexp.MustCompile(`(?i)stress-ng\s+kill\s+stressor`)
	namedProseRE  = regexp.MustCompile(`(?i)\b(hackbench|sysbench|pgbench|schbench|netperf|tbench|will-it-scale|unixbench|postgres_sysbench)\b`)
	cpusProseRE   = regexp.MustCompile(`(?i)\b(\d+)\s+(?:v?CPUs|cores)\b`)
	singleRE      = regexp.MustCompile(`(?i)single[ -]thread`)
)

// proseCommands finds the runs a level describes in words when it shows
// no command line for them.
func (s *Section) proseCommands(ps []paragraph) {
	shown := map[string]bool{}
	for _, c := range s.Commands {
		shown[strings.SplitN(c.Map.Spec, ":", 2)[0]] = true
	}
	for _, p := range ps {
		text, lineAt := joinParagraph(p)
		add := func(at int, what string, m Mapping) {
			if shown[strings.SplitN(m.Spec, ":", 2)[0]] && m.Spec != "" {
				return
			}
			s.Commands = append(s.Commands, &Command{Line: lineAt(at), Text: what, Prose: true, Map: m})
			if m.Spec != "" {
				shown[strings.SplitN(m.Spec, ":", 2)[0]] = true
			}
		}
		if loc := rcuProseRE.FindStringSubmatchIndex(text); loc != nil {
			sub := rcuProseRE.FindStringSubmatch(text)
			m := Mapping{Spec: "rcu:calls=" + sub[1], Set: []string{"/sys/kernel/rcu_expedited=0"}}
			m.Notes = append(m.Notes, "normal grace periods (rcu_expedited=0), as a default kernel has them; an expedited one takes microseconds")
			if sub[2] != "" {
				m.Repeat, _ = strconv.Atoi(sub[2])
			}
			m.Notes = append(m.Notes, "user space reaches synchronize_rcu() through membarrier(MEMBARRIER_CMD_GLOBAL)")
			if c := cpusProseRE.FindStringSubmatch(text); c != nil {
				m.Notes = append(m.Notes, "the mail ran on "+c[1]+" CPUs; kdelta runs on this machine's")
			}
			add(loc[0], sub[0], m)
		}
		if loc := bridgeProseRE.FindStringSubmatchIndex(text); loc != nil {
			sub := bridgeProseRE.FindStringSubmatch(text)
			add(loc[0], sub[0], Mapping{Spec: "bridge:cycles=" + sub[1]})
		}
		if loc := killProseRE.FindStringIndex(text); loc != nil {
			m := Mapping{Spec: "kill"}
			if singleRE.MatchString(text) {
				m.Spec = "kill:instances=1"
			}
			m.Notes = append(m.Notes, "the mail gives no --kill-ops: kdelta's default count of bogo-ops")
			add(loc[0], text[loc[0]:loc[1]], m)
		}
		for _, loc := range namedProseRE.FindAllStringIndex(text, -1) {
			name := strings.ToLower(text[loc[0]:loc[1]])
			if shown[name] || shown[map[string]string{"hackbench": "messaging"}[name]] {
				continue
			}
			shown[name] = true
			add(loc[0], name, Mapping{Cannot: "the mail names " + name + " but not its parameters"})
		}
	}
}

// joinParagraph joins a paragraph's lines with spaces, and returns a
// function from an offset in the joined text to the mail's line there.
func joinParagraph(p paragraph) (string, func(int) int) {
	var b strings.Builder
	starts := make([]int, len(p))
	for i, l := range p {
		if i > 0 {
			b.WriteByte(' ')
		}
		starts[i] = b.Len()
		b.WriteString(strings.TrimSpace(l.Text))
	}
	return b.String(), func(off int) int {
		n := p[0].N
		for i, st := range starts {
			if st <= off {
				n = p[i].N
			}
		}
		return n
	}
}
