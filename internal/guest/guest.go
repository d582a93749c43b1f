// Package guest is kdelta as the /init of a kernel booted by vm: it
// mounts the kernel's file systems, runs the job the host put in the
// initramfs with the normal runner, and sends the result set home over
// a serial port. It imports only what measures (workloads, the runner,
// counters, the fingerprint, sys), so that cmd/kdelta-guest, the binary
// vm puts in the initramfs, carries no store, queue, web or browser
// (TestGuestIsLean).
package guest

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"github.com/kdelta/kdelta/internal/counter"
	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/runner"
	"github.com/kdelta/kdelta/internal/sys"
	"github.com/kdelta/kdelta/internal/sysinfo"
	"github.com/kdelta/kdelta/internal/workload"
)

// The ports of the guest: the console (kernel messages, /init's output)
// and the result channel, each a port its architecture's distribution
// kernels build in (virtio-console is a module): see channels.
var guestChannel = channel()

// IsGuest tells whether this process is kdelta running as a guest's /init:
// the kernel started it as process 1 (or as /init) and the initramfs holds
// a job. Process 1 of a container has no job file, so it is not taken for
// a guest.
func IsGuest() bool {
	if os.Getpid() != 1 && (len(os.Args) == 0 || os.Args[0] != "/init") {
		return false
	}
	_, err := os.Stat("/" + JobFile)
	return err == nil
}

// Main is /init in a guest: it mounts the kernel's file systems, runs
// the job with the normal runner (each measured run in a child, the kdelta
// binary re-executed, as on a host), takes the fingerprint from inside the
// guest, sends the result set to the host as a frame over the second
// serial port and powers off. It returns only if powering off fails. A
// loader's /init (Options.KexecFrom) runs nothing: it says its boot, loads
// the kernel its initramfs carries and reboots into it, whose /init says
// its boot in turn before it runs the job.
func Main() int {
	con := os.Stdout
	var ch *os.File
	send := func(kind string, payload []byte) {
		if ch == nil {
			fmt.Fprintf(con, "kdelta guest: no channel to the host; %s: %s\n", kind, truncate(string(payload), 500))
			return
		}
		// The kernel may write its messages to the channel too (s390x's
		// VT220 port is also a console): hold them off the consoles while
		// the frame goes out.
		_ = os.WriteFile("/proc/sys/kernel/printk", []byte("1\n"), 0)
		if err := WriteFrame(ch, kind, payload); err != nil {
			fmt.Fprintf(con, "kdelta guest: write %s: %v\n", guestChannel, err)
		}
		if err := sys.Drain(int(ch.Fd())); err != nil {
			fmt.Fprintf(con, "kdelta guest: drain %s: %v\n", guestChannel, err)
		}
	}
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(con, "kdelta guest: panic: %v\n%s", r, debug.Stack())
			send(FrameError, []byte(fmt.Sprintf("kdelta panicked in the guest: %v", r)))
		}
		powerOff(con)
	}()

	// The host takes this line (or the kernel's first) as the sign that
	// the guest booted.
	fmt.Fprintln(con, "kdelta guest: /init started")
	mountAll(con)
	// The fingerprint's hostname tells a guest's result from the host's.
	_ = sys.Sethostname("kdelta-guest")
	f, err := os.OpenFile(guestChannel, os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		fmt.Fprintf(con, "kdelta guest: open %s: %v\n", guestChannel, err)
	} else {
		ch = f
		if err := sys.MakeRaw(int(f.Fd())); err != nil {
			fmt.Fprintf(con, "kdelta guest: raw mode on %s: %v\n", guestChannel, err)
		}
	}
	j, err := readGuestJob()
	if err != nil {
		fmt.Fprintf(con, "kdelta guest: %v\n", err)
		send(FrameError, []byte(err.Error()))
		return 1
	}
	if j.ReportBoot {
		sendBoot(con, send)
	}
	if j.RootFS == RootFSHost {
		if err := enterHostRoot(con); err != nil {
			fmt.Fprintf(con, "kdelta guest: %v\n", err)
			send(FrameError, []byte(err.Error()))
			return 1
		}
	}
	if j.Kexec != nil {
		err := kexecInto(con, j.Kexec, send)
		fmt.Fprintf(con, "kdelta guest: %v\n", err)
		send(FrameError, []byte(err.Error()))
		return 1
	}
	set, err := runGuestJob(con, j)
	if err != nil {
		fmt.Fprintf(con, "kdelta guest: %v\n", err)
		send(FrameError, []byte(err.Error()))
		return 1
	}
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	if err := json.NewEncoder(zw).Encode(set); err != nil {
		send(FrameError, []byte(fmt.Sprintf("encode the result set: %v", err)))
		return 1
	}
	zw.Close()
	fmt.Fprintf(con, "kdelta guest: sending the result set (%d bytes)\n", z.Len())
	t0 := time.Now()
	send(FrameResult, z.Bytes())
	fmt.Fprintf(con, "kdelta guest: sent in %.2f s\n", time.Since(t0).Seconds())
	return 0
}

// mountAll mounts what the runner and the fingerprint read: /proc, /sys,
// devtmpfs on /dev (the serial ports), debugfs (the preemption mode),
// tracefs and cgroup2. A mount that fails is said on the console; what
// depends on it is then unknown in the fingerprint, with the reason.
func mountAll(con *os.File) {
	for _, m := range []struct{ fstype, dir string }{
		{"proc", "/proc"},
		{"sysfs", "/sys"},
		{"devtmpfs", "/dev"},
		{"debugfs", "/sys/kernel/debug"},
		{"tracefs", "/sys/kernel/tracing"},
		{"tmpfs", "/tmp"},
		// A shield (run --shield) needs cgroup v2's cpuset.
		{"cgroup2", "/sys/fs/cgroup"},
	} {
		if err := os.MkdirAll(m.dir, 0o755); err != nil {
			fmt.Fprintf(con, "kdelta guest: mkdir %s: %v\n", m.dir, err)
			continue
		}
		if err := sys.Mount(m.fstype, m.dir, m.fstype, ""); err != nil {
			fmt.Fprintf(con, "kdelta guest: mount %s on %s: %v\n", m.fstype, m.dir, err)
		}
	}
}

// readGuestJob reads the guest's job.
func readGuestJob() (*Job, error) {
	b, err := os.ReadFile("/" + JobFile)
	if err != nil {
		return nil, fmt.Errorf("read the job: %w", err)
	}
	j, err := UnmarshalJob(b)
	if err != nil {
		return nil, fmt.Errorf("/%s: %w", JobFile, err)
	}
	return j, nil
}

// runGuestJob runs the job.
func runGuestJob(con *os.File, j *Job) (*result.Set, error) {
	workload.SetToolVersions(j.ToolVersions)
	// Modules first: a parameter resolved from the kernel (bridge's
	// vlan_filtering=auto probes a bridge) must see bridge.ko loaded.
	loadErrs := loadGuestModules("/")
	for _, e := range loadErrs {
		fmt.Fprintf(con, "kdelta guest: module %s\n", e)
	}
	specs, err := j.Workloads()
	if err != nil {
		return nil, err
	}
	t0 := time.Now()
	env := runner.Fingerprint(j.Version)
	fmt.Fprintf(con, "kdelta guest: fingerprint taken in %.2f s\n", time.Since(t0).Seconds())
	var cfg map[string]string
	if env.Config.Source != "" {
		if data, err := os.ReadFile(env.Config.Source); err == nil {
			cfg = parseConfigValues(data)
		}
	}
	for i, sp := range specs {
		if reason := missingModules("/", sp.Workload.Name(), cfg, loadErrs); reason != "" {
			specs[i].Workload = guestSkip{Workload: sp.Workload, reason: reason}
		}
	}
	opt := &runner.Options{
		Repeat:  j.Repeat,
		Warmup:  j.Warmup,
		FIFO:    j.FIFO,
		Timeout: j.Timeout,
		Command: j.Command,
		Version: j.Version,
		Labels:  map[string]string{},
		Env:     env,
	}
	for k, v := range j.Labels {
		opt.Labels[k] = v
	}
	if j.CPUs != "" {
		list, err := sys.ParseCPUList(j.CPUs)
		if err != nil {
			return nil, fmt.Errorf("--cpus: %w", err)
		}
		opt.CPUs = list
	}
	opt.Warnings = sysinfo.Warnings(env, opt.CPUs)
	if err := runner.Check(opt); err != nil {
		return nil, err
	}
	switch {
	case j.Counters != nil:
		if err := guestCounters(con, opt, *j.Counters, j.Monitors); err != nil {
			return nil, err
		}
	case j.Monitors != "":
		if err := guestMonitors(con, opt, j.Monitors); err != nil {
			return nil, err
		}
	}
	if len(j.FuncLatency) > 0 {
		// The journal goes to the guest's /tmp (a tmpfs), and with the
		// guest when it powers off; tracefs is put back before that.
		fl, err := counter.OpenFuncLatency(counter.FuncOptions{Funcs: j.FuncLatency, Scope: j.FuncScope,
			JournalDir: "/tmp/kdelta/restore.d", Command: j.Command})
		if err != nil {
			return nil, fmt.Errorf("--funclatency: %w", err)
		}
		defer fl.Close()
		opt.Window, opt.Metrics = fl.Window(), fl.Metrics()
		fmt.Fprintf(con, "kdelta guest: --funclatency %s: %s\n", strings.Join(j.FuncLatency, ","), fl.Describe())
	}
	fmt.Fprintf(con, "kdelta guest: kernel %s, preemption %s; running %d workloads, %d runs each\n",
		env.Kernel.Release, env.Preempt.Mode, len(specs), j.Repeat)
	t0 = time.Now()
	set, err := runner.Run(context.Background(), specs, opt)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(con, "kdelta guest: runs done in %.2f s\n", time.Since(t0).Seconds())
	return set, nil
}

// guestMonitors takes the job's monitors around every run, as kdelta run
// does on a host, explained by the guest's own fingerprint, and turns
// schedstats on when they name schedstat. Unlike a host's session it
// leaves them on: the guest powers off once its result is sent. A TCG
// guest of TestVMSchedstatWindow hung in CI with "runs done" the console's
// last line, and the only kernel work between that line and the sending
// of the result was turning schedstats off again, a static key whose
// switch patches kernel text on every CPU (the test's guest had hung once
// before, where is not known).
func guestMonitors(con *os.File, opt *runner.Options, list string) error {
	mons, err := counter.ParseMonitors(list)
	if err != nil {
		return fmt.Errorf("--monitor: %w", err)
	}
	mons = counter.CheckMonitors(mons, "/", opt.Env)
	hook := counter.Hook(nil, counter.Options{}, mons, "/")
	opt.OnReady, opt.OnReadyWarmup = hook, hook
	counter.SessionSchedstats(counter.EnablesSchedstats(list, mons), "/", func(err error) { fmt.Fprintf(con, "kdelta guest: %v\n", err) })
	return nil
}

// guestCounters counts the job's perf events on every run (and its
// probes on warm-ups), with its monitors, as kdelta run does on a host,
// and records them in the set's run conditions. Like guestMonitors it
// leaves schedstats on.
func guestCounters(con *os.File, opt *runner.Options, cs counter.Setup, monitors string) error {
	cs.Monitor = monitors
	if cs.Monitor == "" {
		cs.Monitor = "none"
	}
	measured, warmup, schedstat, err := cs.Hooks(opt.CPUs, false, opt.Env)
	if err != nil {
		return err
	}
	opt.OnReady, opt.OnReadyWarmup = measured, warmup
	opt.Conditions = cs.Conditions(true)
	counter.SessionSchedstats(schedstat, "/", func(err error) { fmt.Fprintf(con, "kdelta guest: %v\n", err) })
	return nil
}

// powerOff ends the guest; qemu exits when it does.
func powerOff(con *os.File) {
	if err := sys.PowerOff(); err != nil {
		fmt.Fprintf(con, "kdelta guest: power off: %v\n", err)
	}
}

// guestSkip marks a workload that cannot run in this guest, with the
// reason, through the runner's precheck; the workload still names the
// benchmark and its metrics.
type guestSkip struct {
	workload.Workload
	reason string
}

func (g guestSkip) Precheck(workload.Values) string { return g.reason }

func (g guestSkip) MetricsFor(v workload.Values) []result.Metric {
	return workload.MetricsOf(workload.Spec{Workload: g.Workload, Values: v})
}
