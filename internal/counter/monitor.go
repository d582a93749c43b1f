package counter

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/sysinfo"
)

// MonitorNames are the system files a run can be monitored with, by the
// name --monitor takes.
var MonitorNames = []string{"stat", "softirqs", "schedstat", "interrupts"}

// DefaultMonitorList is the --monitor default: every monitor over the
// whole run (each snapshot is one read of a small file).
const DefaultMonitorList = "all"

// monitorFiles are the files each monitor reads, relative to the root.
var monitorFiles = map[string]string{
	"stat":       "proc/stat",
	"softirqs":   "proc/softirqs",
	"schedstat":  "proc/schedstat",
	"interrupts": "proc/interrupts",
}

// monitorOptions are the kernel config options without which a monitor's
// file does not exist: kernel/sched/stats.c, which makes /proc/schedstat
// (and the sched_schedstats sysctl), is built only with CONFIG_SCHEDSTATS.
var monitorOptions = map[string]string{
	"schedstat": "CONFIG_SCHEDSTATS",
}

// schedstatsSysctl is the switch of the schedstat counters.
const schedstatsSysctl = "proc/sys/kernel/sched_schedstats"

// A MonitorSpec is one monitor to take over a run: over the whole run, or
// over a window of Duration starting Start after the run began.
type MonitorSpec struct {
	Name     string
	Start    time.Duration
	Duration time.Duration // 0: the whole run
	// Missing, when set, says why the monitor cannot be taken on this
	// machine (see CheckMonitors): nothing is read, and every run records
	// it as the monitor's Unavailable.
	Missing string
}

// Window is the spec's window as a Monitor records it: "" for the whole
// run, else "@20s+5s".
func (s MonitorSpec) Window() string {
	if s.Duration == 0 {
		return ""
	}
	return "@" + shortDuration(s.Start) + "+" + shortDuration(s.Duration)
}

// shortDuration is d as Go writes it without the zero tails: "1h" rather
// than "1h0m0s", "2m" rather than "2m0s".
func shortDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// String is the spec as --monitor takes it.
func (s MonitorSpec) String() string { return s.Name + s.Window() }

var windowRe = regexp.MustCompile(`^([^+]+)\+(.+)$`)

// ParseMonitors parses a --monitor list: comma-separated monitor names
// (stat, softirqs, schedstat, interrupts), "all" for every one, or "none"
// alone for no monitor. Each name may take a window, NAME@START+DURATION
// in Go's duration syntax ("schedstat@20s+5s": from 20 s after the run
// started, over 5 s).
func ParseMonitors(list string) ([]MonitorSpec, error) {
	list = strings.TrimSpace(list)
	if list == "" {
		return nil, fmt.Errorf("--monitor: empty list (use none for no monitor)")
	}
	if list == "none" {
		return []MonitorSpec{}, nil
	}
	var specs []MonitorSpec
	seen := map[MonitorSpec]bool{}
	add := func(s MonitorSpec) {
		if !seen[s] {
			seen[s] = true
			specs = append(specs, s)
		}
	}
	for _, item := range strings.Split(list, ",") {
		item = strings.TrimSpace(item)
		name, window, hasWindow := strings.Cut(item, "@")
		var spec MonitorSpec
		if hasWindow {
			m := windowRe.FindStringSubmatch(window)
			if m == nil {
				return nil, fmt.Errorf("--monitor %q: window %q is not START+DURATION (like 20s+5s)", item, window)
			}
			start, err := time.ParseDuration(m[1])
			if err != nil || start < 0 {
				return nil, fmt.Errorf("--monitor %q: bad window start %q", item, m[1])
			}
			dur, err := time.ParseDuration(m[2])
			if err != nil || dur <= 0 {
				return nil, fmt.Errorf("--monitor %q: bad window duration %q (want > 0)", item, m[2])
			}
			spec.Start, spec.Duration = start, dur
		}
		switch {
		case name == "none":
			return nil, fmt.Errorf("--monitor %q: none cannot be combined with other monitors", list)
		case name == "all":
			for _, n := range MonitorNames {
				spec.Name = n
				add(spec)
			}
		case monitorFiles[name] != "":
			spec.Name = name
			add(spec)
		default:
			return nil, fmt.Errorf("--monitor: unknown monitor %q (known: %s, all, none)", name, strings.Join(MonitorNames, ", "))
		}
	}
	return specs, nil
}

// CheckMonitors returns specs with Missing set on each monitor whose file
// is absent under root, saying why in one line. A file that a kernel
// config option makes (/proc/schedstat, CONFIG_SCHEDSTATS) is explained
// from the kernel config of env, the session's fingerprint: "this kernel is
// built without CONFIG_SCHEDSTATS (no /proc/schedstat)" rather than what
// the absence leads to later (a window that reads nothing, a sysctl that
// cannot be set). env may be nil, which is a config not known.
func CheckMonitors(specs []MonitorSpec, root string, env *sysinfo.Fingerprint) []MonitorSpec {
	out := append([]MonitorSpec(nil), specs...)
	for i := range out {
		out[i].Missing = missingCause(out[i].Name, root, env)
	}
	return out
}

// missingCause says why monitor name's file is absent under root, or ""
// when it is there (or cannot be told absent: other errors are the
// snapshot's to report).
func missingCause(name, root string, env *sysinfo.Fingerprint) string {
	rel, ok := monitorFiles[name]
	if !ok {
		return ""
	}
	if _, err := os.Stat(filepath.Join(root, rel)); err == nil || !errors.Is(err, fs.ErrNotExist) {
		return ""
	}
	file := "/" + rel
	option, ok := monitorOptions[name]
	if !ok {
		return fmt.Sprintf("not available: %s does not exist", file)
	}
	var value string
	known := false
	if env != nil {
		value, known = env.Config.Option(option)
	}
	switch {
	case !known:
		why := "no fingerprint"
		if env != nil && env.Config.Unknown != "" {
			why = env.Config.Unknown
		}
		return fmt.Sprintf("not available: %s does not exist (it needs %s; the kernel config is unknown: %s)", file, option, why)
	case value == "n":
		return fmt.Sprintf("this kernel is built without %s (no %s)", option, file)
	}
	return fmt.Sprintf("not available: %s does not exist, though the kernel is built with %s=%s (is /proc mounted?)", file, option, value)
}

// EnablesSchedstats tells whether a session monitored with specs, parsed
// from the --monitor list, turns kernel.sched_schedstats on: when the list
// names schedstat (all does not, so that the default changes no setting)
// and the kernel has it.
func EnablesSchedstats(list string, specs []MonitorSpec) bool {
	named := false
	for _, item := range strings.Split(list, ",") {
		name, _, _ := strings.Cut(strings.TrimSpace(item), "@")
		named = named || name == "schedstat"
	}
	if !named {
		return false
	}
	for _, s := range specs {
		if s.Name == "schedstat" && s.Missing == "" {
			return true
		}
	}
	return false
}

// A Snapshot is one reading of a monitor's file.
type Snapshot struct {
	Name string
	Time time.Time
	// Counters grow over time and are reported as deltas; Gauges are
	// instantaneous (procs_running) and reported as the later value.
	Counters map[string]float64
	Gauges   map[string]float64
	// Text holds what is not a number (see result.Monitor.Text).
	Text map[string]string
	// Notes explain the values (schedstat version, domain names,
	// schedstats disabled).
	Notes []string
	// Unavailable says why nothing was read; the other fields are empty.
	Unavailable string
}

// TakeSnapshot reads monitor name under root ("/" for this machine).
func TakeSnapshot(name, root string) Snapshot {
	s := Snapshot{Name: name, Time: time.Now()}
	rel, ok := monitorFiles[name]
	if !ok {
		s.Unavailable = fmt.Sprintf("unknown monitor %q", name)
		return s
	}
	path := filepath.Join(root, rel)
	b, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			s.Unavailable = fmt.Sprintf("not available: %s does not exist", path)
		} else {
			s.Unavailable = fmt.Sprintf("not available: %v", err)
		}
		return s
	}
	bad := func(err error) Snapshot {
		return Snapshot{Name: name, Time: s.Time, Unavailable: fmt.Sprintf("unreadable: %s: %v", path, err)}
	}
	switch name {
	case "stat":
		ps, err := ParseProcStat(b)
		if err != nil {
			return bad(err)
		}
		s.Counters, s.Gauges = ps.sample()
	case "softirqs":
		si, err := ParseSoftirqs(b)
		if err != nil {
			return bad(err)
		}
		s.Counters = si.sample()
	case "interrupts":
		in, err := ParseInterrupts(b)
		if err != nil {
			return bad(err)
		}
		s.Counters = in.sample()
	case "schedstat":
		ss, err := ParseSchedstat(b)
		if err != nil {
			return bad(err)
		}
		s.Counters, s.Text = ss.sample(), ss.text()
		s.Notes = append(s.Notes, fmt.Sprintf("schedstat version %d", ss.Version))
		if names := ss.domainNames(); names != "" {
			s.Notes = append(s.Notes, "domain names: "+names)
		}
		s.Notes = append(s.Notes, schedstatsNote(root))
	}
	return s
}

// schedstatsNote says whether the schedstat counters were being counted.
func schedstatsNote(root string) string {
	path := filepath.Join(root, schedstatsSysctl)
	b, err := os.ReadFile(path)
	switch {
	case err != nil:
		return fmt.Sprintf("schedstats state unknown (%v): yld/sched/ttwu and domain counters may stay zero", err)
	case strings.TrimSpace(string(b)) == "0":
		return "schedstats disabled (kernel.sched_schedstats=0): yld_count, sched_count, sched_goidle, ttwu_count, ttwu_local and every domain counter stay zero; rq_cpu_time, run_delay and pcount are counted"
	}
	return "schedstats enabled (kernel.sched_schedstats=1)"
}

// perDomainKey matches the per-CPU, per-domain schedstat keys, which are
// many on a large machine (CPUs × levels × 45) and are kept only when they
// changed.
var perDomainKey = regexp.MustCompile(`^cpu\d+\.domain\d+\.`)

// Delta returns the change from snapshot a to the later b as a Monitor:
// counters as b−a, gauges as b's value. A key missing from either
// snapshot (a CPU brought online in between) is left out, as is a counter
// that went backwards (a 32-bit counter that wrapped, a CPU taken
// offline), each said in a note.
func Delta(a, b Snapshot) result.Monitor {
	m := result.Monitor{Name: b.Name}
	switch {
	case a.Unavailable != "":
		m.Unavailable = a.Unavailable
		return m
	case b.Unavailable != "":
		m.Unavailable = b.Unavailable
		return m
	}
	m.Values = map[string]float64{}
	var missing, backwards, zeroDomain int
	var backKeys []string
	for k, bv := range b.Counters {
		av, ok := a.Counters[k]
		if !ok {
			missing++
			continue
		}
		d := bv - av
		if d < 0 {
			backwards++
			backKeys = append(backKeys, k)
			continue
		}
		if d == 0 && b.Name == "schedstat" && perDomainKey.MatchString(k) {
			zeroDomain++
			continue
		}
		m.Values[k] = d
	}
	for k := range a.Counters {
		if _, ok := b.Counters[k]; !ok {
			missing++
		}
	}
	for k, v := range b.Gauges {
		m.Values[k] = v
	}
	m.Text = b.Text
	m.Notes = mergeNotes(a.Notes, b.Notes)
	if missing > 0 {
		m.Notes = append(m.Notes, fmt.Sprintf("%d keys present in only one snapshot left out (CPUs or lines appeared or went)", missing))
	}
	if backwards > 0 {
		sort.Strings(backKeys)
		if len(backKeys) > 5 {
			backKeys = append(backKeys[:5], "...")
		}
		m.Notes = append(m.Notes, fmt.Sprintf("%d counters went backwards (wrapped or reset) and were left out: %s", backwards, strings.Join(backKeys, ", ")))
	}
	if zeroDomain > 0 {
		m.Notes = append(m.Notes, fmt.Sprintf("%d per-CPU domain counters that did not change left out (domainN.* totals are complete)", zeroDomain))
	}
	return m
}

func mergeNotes(a, b []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, n := range append(append([]string(nil), a...), b...) {
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	return out
}

// Running monitors over one run, started by StartMonitors.
type Running struct {
	root    string
	start   time.Time
	specs   []MonitorSpec
	mu      sync.Mutex
	stopped bool
	before  []*Snapshot
	after   []*Snapshot
	timers  []*time.Timer
}

// StartMonitors takes the before snapshot of every whole-run monitor now
// and schedules the windowed ones, reading files under root. A spec with
// Missing set reads nothing.
func StartMonitors(specs []MonitorSpec, root string) *Running {
	r := &Running{root: root, start: time.Now(), specs: specs, before: make([]*Snapshot, len(specs)), after: make([]*Snapshot, len(specs))}
	for i, s := range specs {
		if s.Missing != "" {
			continue
		}
		if s.Duration == 0 {
			snap := TakeSnapshot(s.Name, root)
			r.before[i] = &snap
			continue
		}
		i, s := i, s
		r.timers = append(r.timers,
			time.AfterFunc(s.Start, func() { r.take(i, s.Name, r.before) }),
			time.AfterFunc(s.Start+s.Duration, func() { r.take(i, s.Name, r.after) }))
	}
	return r
}

// take stores a snapshot of a windowed monitor unless the run has ended.
func (r *Running) take(i int, name string, into []*Snapshot) {
	snap := TakeSnapshot(name, r.root)
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.stopped {
		into[i] = &snap
	}
}

// Stop takes the after snapshot of every whole-run monitor and returns one
// Monitor per spec, in order. A monitor that could not be read says why;
// a window that had not ended when the run did says how long the run
// lasted.
func (r *Running) Stop() []result.Monitor {
	r.mu.Lock()
	r.stopped = true
	lasted := time.Since(r.start)
	for _, t := range r.timers {
		t.Stop()
	}
	r.mu.Unlock()
	out := make([]result.Monitor, len(r.specs))
	for i, s := range r.specs {
		var m result.Monitor
		before, after := r.before[i], r.after[i]
		switch {
		case s.Missing != "":
			m = result.Monitor{Name: s.Name, Unavailable: s.Missing}
		case s.Duration == 0:
			a := TakeSnapshot(s.Name, r.root)
			m = Delta(*before, a)
		case before != nil && before.Unavailable != "":
			m = result.Monitor{Name: s.Name, Unavailable: before.Unavailable}
		case before == nil || after == nil:
			m = result.Monitor{Name: s.Name, Unavailable: fmt.Sprintf("the run ended before the window did (it lasted %s)", lasted.Round(time.Millisecond))}
		default:
			m = Delta(*before, *after)
		}
		m.Window = s.Window()
		out[i] = m
	}
	return out
}

// SessionSchedstats is EnableSchedstats for a session that on says needs
// it (EnablesSchedstats), with a failure passed to warn: the session runs
// anyway, its counters then said to stay zero. The function returned puts
// the setting back, and is never nil.
func SessionSchedstats(on bool, root string, warn func(error)) (restore func() error) {
	if !on {
		return func() error { return nil }
	}
	restore, err := EnableSchedstats(root)
	if err != nil {
		warn(err)
	}
	return restore
}

// EnableSchedstats turns kernel.sched_schedstats on under root if it is
// off, and returns the function that puts it back as it was. Call restore
// whatever happens to the run; it is a no-op when nothing was changed, and
// restore is never nil. The error says what the failure means for the
// counters.
func EnableSchedstats(root string) (restore func() error, err error) {
	noop := func() error { return nil }
	path := filepath.Join(root, schedstatsSysctl)
	b, err := os.ReadFile(path)
	if err != nil {
		return noop, fmt.Errorf("enable schedstats: %w: schedstat counters may stay zero", err)
	}
	old := strings.TrimSpace(string(b))
	if old == "1" {
		return noop, nil
	}
	if err := os.WriteFile(path, []byte("1\n"), 0o644); err != nil {
		return noop, fmt.Errorf("enable schedstats: %w: schedstat counters may stay zero", err)
	}
	var once sync.Once
	var rerr error
	return func() error {
		once.Do(func() {
			if err := os.WriteFile(path, []byte(old+"\n"), 0o644); err != nil {
				rerr = fmt.Errorf("restore %s to %s: %w", path, old, err)
			}
		})
		return rerr
	}, nil
}
