package counter

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"syscall"

	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/sys"
)

// Options say what Attach counts.
type Options struct {
	// SystemWide counts every task on CPUs, as perf stat -a does; the pid
	// given to Attach is ignored. It needs root, CAP_PERFMON or
	// kernel.perf_event_paranoid ≤ 0.
	SystemWide bool
	// CPUs are the CPUs a system-wide count covers; nil means every online
	// CPU.
	CPUs []int
	// EnableOnExec leaves the counters off until the process calls execve:
	// the thread that execs keeps its counters (and so does everything the
	// new program creates), while the process's other threads die at the
	// exec. It is how a command is counted from its first instruction, as
	// perf stat does, when the process is a shim that execs the command
	// after Attach returns. It is ignored with SystemWide.
	EnableOnExec bool
	// NoGroup opens one fd per event and thread instead of reading the
	// events of a kind together as a group.
	NoGroup bool
}

// ErrNothingCounted is wrapped by Attach's error when no event could be
// opened at all. The Set is returned with it: its Read gives every counter
// with the reason it was not counted.
var ErrNothingCounted = errors.New("no event could be counted")

// A Set is a set of open perf events over one process (every thread it has
// and every task they create) or over CPUs.
type Set struct {
	events []Event
	// reason[i] is why events[i] is not counted ("" while it counts).
	reason []string
	opened []bool
	groups []*group
	group  bool // read events of a kind together (PERF_FORMAT_GROUP)
	closed bool
	// Notes say how the count was made where it matters to a reader
	// ("group reads refused with inherit: one fd per event").
	Notes []string
}

// A group is the fds opened on one thread (or CPU) for events of one kind,
// read together through the leader.
type group struct {
	leader int
	fds    []int
	events []int    // event index of each fd
	ids    []uint64 // kernel id of each fd, for PERF_FORMAT_ID
	format uint64
}

// pmuKind separates events that never multiplex (software events and
// tracepoints, counted by the kernel itself) from those that share a few
// hardware counters. They are grouped apart so that multiplexing of the
// hardware group never scales the software counts.
func pmuKind(ev Event) int {
	if ev.Type == sys.PerfTypeSoftware || ev.Type == sys.PerfTypeTracepoint {
		return 0
	}
	return 1
}

// Attach opens events on process pid and enables them (unless
// opt.EnableOnExec), so that everything the process and the tasks it
// creates do from now on is counted.
//
// A Go process already has several threads when it reports that it is
// ready, and a thread that a goroutine gets later may be cloned from any of
// them (the runtime's template thread clones for locked threads, not the
// main thread), so a counter with inherit on the main thread alone would
// miss work. Attach therefore opens every event on every thread listed in
// /proc/PID/task, each with inherit set, so that every thread and process
// any of them creates later is counted too. To list a thread set that
// cannot change underneath, the process is stopped with SIGSTOP while the
// events are opened (disabled), then continued, and the counters are
// enabled only once its threads have left the stopped state, so the stop
// itself is not counted. A process's existing child processes are not
// attached: start them after Attach.
//
// An event that cannot be opened (not supported here, forbidden by
// perf_event_paranoid) is kept in the Set with the reason and read as a
// counter with Unsupported set; it is never an error for the whole set.
// When nothing at all could be opened the error wraps ErrNothingCounted
// and the Set is still returned.
func Attach(pid int, events []Event, opt Options) (*Set, error) {
	s := &Set{
		events: events,
		reason: make([]string, len(events)),
		opened: make([]bool, len(events)),
		group:  !opt.NoGroup,
	}
	for i, ev := range events {
		s.reason[i] = ev.Unsupported
	}
	if len(events) == 0 {
		return s, nil
	}
	if s.group && !opt.SystemWide && !groupInheritWorks() {
		s.group = false
		s.Notes = append(s.Notes, "group reads with inherit refused by this kernel: one fd per event")
	}
	if opt.SystemWide {
		cpus := opt.CPUs
		if cpus == nil {
			b, err := os.ReadFile("/sys/devices/system/cpu/online")
			if err != nil {
				return nil, fmt.Errorf("system-wide counting: %w", err)
			}
			if cpus, err = sys.ParseCPUList(string(b)); err != nil {
				return nil, fmt.Errorf("system-wide counting: /sys/devices/system/cpu/online: %w", err)
			}
		}
		for _, c := range cpus {
			if err := s.attachTarget(-1, c, opt); err != nil {
				s.Close()
				return nil, fmt.Errorf("system-wide counting on CPU %d: %w", c, err)
			}
		}
	} else {
		if pid <= 0 {
			return nil, fmt.Errorf("attach counters: bad pid %d", pid)
		}
		if err := s.attachProcess(pid, opt); err != nil {
			s.Close()
			return nil, err
		}
	}
	if opt.SystemWide {
		opt.EnableOnExec = false
	}
	if !opt.EnableOnExec {
		for _, g := range s.groups {
			if err := sys.PerfEnable(g.leader, s.group); err != nil {
				s.Notes = append(s.Notes, err.Error())
			}
		}
	}
	if len(s.groups) == 0 {
		var why []string
		for i, ev := range events {
			if s.reason[i] != "" {
				why = append(why, ev.Name+": "+s.reason[i])
			}
		}
		if len(why) == 0 {
			// Every open failed with ESRCH: the threads went away.
			return nil, fmt.Errorf("attach counters: process %d exited while its threads were being attached", pid)
		}
		return s, fmt.Errorf("%w (%s)", ErrNothingCounted, strings.Join(why, "; "))
	}
	return s, nil
}

// attachProcess opens the events on every thread of pid, with the process
// stopped when it can be (see Attach).
func (s *Set) attachProcess(pid int, opt Options) error {
	resume, frozen := freeze(pid)
	defer resume()
	done := map[int]bool{}
	// Without the stop, threads created while attaching are picked up by
	// listing again; one cloned by an already attached thread is then
	// counted twice, which the stop exists to prevent.
	for pass := 0; pass < 3; pass++ {
		tids, err := tasks(pid)
		if err != nil {
			if pass == 0 {
				return fmt.Errorf("attach counters to process %d: %w", pid, err)
			}
			break
		}
		fresh := 0
		for _, tid := range tids {
			if done[tid] {
				continue
			}
			done[tid] = true
			fresh++
			if err := s.attachTarget(tid, -1, opt); err != nil && !errors.Is(err, syscall.ESRCH) {
				return fmt.Errorf("attach counters to thread %d of process %d: %w", tid, pid, err)
			}
		}
		if frozen || fresh == 0 {
			break
		}
	}
	if len(done) == 0 {
		return fmt.Errorf("attach counters: process %d has no threads", pid)
	}
	return nil
}

// attachTarget opens every countable event on one thread (pid, cpu -1) or
// one CPU (pid -1). It returns ESRCH when the thread is gone; other
// failures mark the event as not counted and go on.
func (s *Set) attachTarget(pid, cpu int, opt Options) error {
	for kind := 0; kind < 2; kind++ {
		var g *group
		for i, ev := range s.events {
			if pmuKind(ev) != kind || s.reason[i] != "" {
				continue
			}
			for {
				fd, err := s.open(ev, pid, cpu, g, opt)
				if err == nil {
					if g == nil || !s.group {
						g = &group{leader: fd, format: readFormat(s.group)}
						s.groups = append(s.groups, g)
					}
					id, _ := sys.PerfID(fd)
					g.fds = append(g.fds, fd)
					g.events = append(g.events, i)
					g.ids = append(g.ids, id)
					s.opened[i] = true
					break
				}
				if errors.Is(err, syscall.ESRCH) {
					return err
				}
				if g != nil && (errors.Is(err, syscall.EINVAL) || errors.Is(err, syscall.ENOSPC)) {
					// The event does not fit beside the group's others
					// (more hardware events than counters): it gets a
					// group of its own and is multiplexed.
					g = nil
					continue
				}
				s.reason[i] = reasonFor(err)
				break
			}
			if !s.group {
				g = nil
			}
		}
	}
	return nil
}

var (
	groupInheritOnce sync.Once
	groupInheritOK   bool
)

// groupInheritWorks tells whether the kernel takes PERF_FORMAT_GROUP
// together with inherit; older kernels refuse the pair with EINVAL.
// It opens a disabled task-clock on the calling thread once to find out.
func groupInheritWorks() bool {
	groupInheritOnce.Do(func() {
		attr := sys.PerfEventAttr{
			Type:        sys.PerfTypeSoftware,
			Config:      sys.PerfCountSWTaskClock,
			Read_format: readFormat(true),
			Bits:        sys.PerfBitDisabled | sys.PerfBitInherit | sys.PerfBitExcludeKernel | sys.PerfBitExcludeHv,
		}
		fd, err := sys.PerfEventOpen(&attr, 0, -1, -1, 0)
		if err == nil {
			sys.CloseFd(fd)
		}
		// Only EINVAL says the pair is refused; anything else (no perf at
		// all, paranoid 3) leaves grouping on for the real opens to report.
		groupInheritOK = !errors.Is(err, syscall.EINVAL)
	})
	return groupInheritOK
}

func readFormat(group bool) uint64 {
	f := uint64(sys.PerfFormatTotalTimeEnabled | sys.PerfFormatTotalTimeRunning | sys.PerfFormatID)
	if group {
		f |= sys.PerfFormatGroup
	}
	return f
}

func (s *Set) open(ev Event, pid, cpu int, g *group, opt Options) (int, error) {
	attr := sys.PerfEventAttr{
		Type:        ev.Type,
		Config:      ev.Config,
		Read_format: readFormat(s.group),
	}
	groupFd := -1
	if g != nil && s.group {
		groupFd = g.leader
	} else {
		// Only a leader is disabled: members follow their leader.
		attr.Bits |= sys.PerfBitDisabled
		if opt.EnableOnExec && !opt.SystemWide {
			attr.Bits |= sys.PerfBitEnableOnExec
		}
	}
	if !opt.SystemWide {
		attr.Bits |= sys.PerfBitInherit
	}
	if ev.ExcludeUser {
		attr.Bits |= sys.PerfBitExcludeUser
	}
	if ev.ExcludeKernel {
		attr.Bits |= sys.PerfBitExcludeKernel
	}
	if ev.ExcludeHV {
		attr.Bits |= sys.PerfBitExcludeHv
	}
	return sys.PerfEventOpen(&attr, pid, cpu, groupFd, 0)
}

// reasonFor is the Unsupported text of an event that failed to open.
func reasonFor(err error) string {
	var pe *sys.PerfError
	if errors.As(err, &pe) && pe.Kind != nil {
		return pe.Error()
	}
	return "not counted (" + err.Error() + ")"
}

// Read returns one counter per event, in the order of the events: the sum
// over every thread (or CPU) attached, which includes the tasks they
// created, alive or exited. A multiplexed count is scaled by
// time_enabled/time_running, as perf stat does, and both times are
// recorded. An event that was not counted has Unsupported set and no
// value.
func (s *Set) Read() []result.Counter {
	if s.closed {
		out := make([]result.Counter, len(s.events))
		for i, ev := range s.events {
			out[i] = result.Counter{Name: ev.Name, Unit: ev.Unit, Unsupported: "not counted (read after the counters were closed)"}
		}
		return out
	}
	reads := make([]groupRead, len(s.groups))
	for i, g := range s.groups {
		v, err := sys.PerfRead(g.leader, g.format, len(g.fds))
		reads[i] = groupRead{g: g, v: v, err: err}
	}
	return s.counters(reads)
}

// A groupRead is one read of a group's leader.
type groupRead struct {
	g   *group
	v   sys.PerfValues
	err error
}

// counters sums the reads into one counter per event. Each read is scaled
// by its own time_enabled/time_running before the sum, since threads and
// CPUs are multiplexed independently.
func (s *Set) counters(reads []groupRead) []result.Counter {
	type acc struct {
		val      float64
		ena, run uint64
		counted  bool // some read had time running
		starved  bool // some read was enabled but never ran
		failed   string
	}
	accs := make([]acc, len(s.events))
	for _, rd := range reads {
		if rd.err != nil {
			for _, i := range rd.g.events {
				accs[i].failed = rd.err.Error()
			}
			continue
		}
		v := rd.v
		for k, raw := range v.Values {
			i, ok := rd.g.eventOf(k, v.IDs)
			if !ok {
				continue
			}
			a := &accs[i]
			if v.Running == 0 {
				a.starved = a.starved || v.Enabled > 0
				continue
			}
			a.counted = true
			a.val += float64(raw) * float64(v.Enabled) / float64(v.Running)
			a.ena += v.Enabled
			a.run += v.Running
		}
	}
	out := make([]result.Counter, len(s.events))
	for i, ev := range s.events {
		c := result.Counter{Name: ev.Name, Unit: ev.Unit}
		a := accs[i]
		switch {
		case s.reason[i] != "":
			c.Unsupported = s.reason[i]
		case !s.opened[i]:
			c.Unsupported = "not counted (no task to attach to)"
		case a.failed != "" && !a.counted:
			c.Unsupported = "not counted (" + a.failed + ")"
		case a.starved && !a.counted:
			c.Unsupported = "not counted (never scheduled on a counter)"
		default:
			c.Value = a.val
			c.EnabledNs, c.RunningNs = a.ena, a.run
		}
		out[i] = c
	}
	return out
}

// eventOf maps the k-th value of a read of g to its event, by id when the
// kernel reported ids.
func (g *group) eventOf(k int, ids []uint64) (int, bool) {
	if k < len(ids) {
		for j, id := range g.ids {
			if id == ids[k] && id != 0 {
				return g.events[j], true
			}
		}
	}
	if k < len(g.events) {
		return g.events[k], true
	}
	return 0, false
}

// Close closes every fd of the set. A Read after it reports every counter
// as not counted.
func (s *Set) Close() error {
	var first error
	for _, g := range s.groups {
		for _, fd := range g.fds {
			if err := sys.CloseFd(fd); err != nil && first == nil {
				first = err
			}
		}
	}
	s.groups = nil
	s.closed = true
	return first
}

// Events returns the events of the set.
func (s *Set) Events() []Event { return s.events }
