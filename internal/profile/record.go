package profile

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/sys"
)

// Options say how perf record samples a run.
type Options struct {
	// Event is the event to sample; "" asks for cycles, which perf
	// replaces with cpu-clock when the PMU has no cycles event (the event
	// actually sampled is recorded in the profile).
	Event string
	// CallGraph records call stacks (perf record -g).
	CallGraph bool
	// SystemWide samples every CPU (perf record -a) instead of the run's
	// task tree.
	SystemWide bool
	// Freq is the sampling frequency in Hz; 0 keeps perf's default.
	Freq int
	// Perf is the perf binary; "" looks it up in PATH.
	Perf string
	// MaxSymbols and MaxStacks bound what a profile keeps (0: 1000 and
	// 2000); a table cut by MaxSymbols gets a CutOff.
	MaxSymbols, MaxStacks int
	// MaxAnnotated is how many of the hottest symbols are annotated and
	// kept with the profile (0: 8).
	MaxAnnotated int
	// Vmlinux is the kernel image perf annotate disassembles kernel
	// symbols from; "" lets perf look for one (its build-id cache,
	// /usr/lib/debug/boot/vmlinux-RELEASE, /proc/kcore).
	Vmlinux string
}

func (o Options) event() string {
	if o.Event == "" {
		return "cycles"
	}
	return o.Event
}

func (o Options) perf() (string, error) {
	name := o.Perf
	if name == "" {
		name = "perf"
	}
	path, err := exec.LookPath(name)
	if err != nil {
		return "", fmt.Errorf("perf not found (%s): install linux-perf or linux-tools", name)
	}
	return path, nil
}

// startTimeout bounds perf record's start: the events opened, enabled and
// acknowledged.
const startTimeout = 20 * time.Second

// Check tells whether perf can record here with o, by recording `true`;
// the error says why not (perf missing, perf_event_paranoid, no such
// event), quoting perf.
func Check(o Options) error {
	perf, err := o.perf()
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "kdelta-perf-check-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	args := []string{"record", "-q", "-e", o.event(), "-o", filepath.Join(dir, "perf.data")}
	if o.SystemWide {
		args = append(args, "-a")
	}
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	out, err := exec.CommandContext(ctx, perf, append(args, "--", "true")...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("perf record -e %s does not work here: %v: %s", o.event(), err, lastLines(out, 2))
	}
	return nil
}

// Hook returns a function of the shape of runner.Options.OnReady. Called
// with the pid of a child that is set up and waiting for its go-ahead, it
// starts perf record on the child's task tree (or on every CPU) with its
// events disabled, enables them through perf's control FIFO and returns
// once perf acknowledged, so sampling starts with the go-ahead. The
// function it returns, called with the finished run, stops perf, reads
// its data with perf report (and perf script for call stacks) and passes
// the profile to done.
//
// The child's exit ends the window: the few instructions between the end
// of the timed loop and its exit are sampled too.
func Hook(o Options, done func(result.Profile)) func(pid int) (func(*result.Run), error) {
	return func(pid int) (func(*result.Run), error) {
		rec, err := start(o, pid)
		if err != nil {
			return nil, err
		}
		return func(r *result.Run) {
			p := rec.finish()
			if r != nil {
				run := *r
				if run.Latency != nil {
					lat := *run.Latency
					lat.Raw = nil
					run.Latency = &lat
				}
				p.Run = &run
				p.Ops = r.Ops
			}
			done(p)
		}, nil
	}
}

// A recording is a perf record process sampling one run.
type recording struct {
	o    Options
	perf string
	dir  string
	cmd  *exec.Cmd
	log  *os.File
	// exited is closed when perf record has been reaped, with its
	// status in waitErr.
	exited  chan struct{}
	waitErr error
	ctl     *os.File
	ack     *os.File
}

func start(o Options, pid int) (*recording, error) {
	perf, err := o.perf()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "kdelta-perf-")
	if err != nil {
		return nil, err
	}
	rec := &recording{o: o, perf: perf, dir: dir, exited: make(chan struct{})}
	ok := false
	defer func() {
		if !ok {
			rec.cleanup()
		}
	}()
	ctl, ack := filepath.Join(dir, "ctl"), filepath.Join(dir, "ack")
	for _, f := range []string{ctl, ack} {
		if err := syscall.Mkfifo(f, 0o600); err != nil {
			return nil, fmt.Errorf("profile: mkfifo %s: %w", f, err)
		}
	}
	// O_RDWR never blocks on a FIFO, whether or not perf has opened its
	// end yet.
	if rec.ctl, err = os.OpenFile(ctl, os.O_RDWR, 0); err != nil {
		return nil, fmt.Errorf("profile: %w", err)
	}
	if rec.ack, err = os.OpenFile(ack, os.O_RDWR, 0); err != nil {
		return nil, fmt.Errorf("profile: %w", err)
	}
	if rec.log, err = os.Create(filepath.Join(dir, "record.log")); err != nil {
		return nil, fmt.Errorf("profile: %w", err)
	}
	args := []string{"record", "-e", o.event(), "-o", filepath.Join(dir, "perf.data"),
		"-D", "-1", "--control", "fifo:" + ctl + "," + ack}
	if o.CallGraph {
		args = append(args, "-g")
	}
	if o.Freq > 0 {
		args = append(args, "-F", strconv.Itoa(o.Freq))
	}
	if o.SystemWide {
		args = append(args, "-a")
	} else {
		args = append(args, "-p", strconv.Itoa(pid))
	}
	rec.cmd = exec.Command(perf, args...)
	rec.cmd.Stdout, rec.cmd.Stderr = rec.log, rec.log
	// A kdelta killed outright must not leave perf recording (with -a it
	// would never stop): SIGINT makes perf write what it has and exit.
	sys.SetParentDeathSignal(rec.cmd, syscall.SIGINT)
	if err := rec.cmd.Start(); err != nil {
		return nil, fmt.Errorf("profile: start perf record: %w", err)
	}
	go func() {
		rec.waitErr = rec.cmd.Wait()
		close(rec.exited)
	}()

	if _, err := rec.ctl.WriteString("enable\n"); err != nil {
		return nil, fmt.Errorf("profile: perf control fifo: %w", err)
	}
	acked := make(chan error, 1)
	go func() {
		buf := make([]byte, 16)
		n, err := rec.ack.Read(buf)
		if err == nil && !strings.HasPrefix(string(buf[:n]), "ack") {
			err = fmt.Errorf("unexpected answer %q", buf[:n])
		}
		acked <- err
	}()
	select {
	case err := <-acked:
		if err != nil {
			return nil, fmt.Errorf("profile: perf record did not acknowledge enable: %w", err)
		}
	case <-rec.exited:
		return nil, fmt.Errorf("profile: perf record %s exited at start (%v): %s", strings.Join(args[1:], " "), rec.waitErr, rec.logTail())
	case <-time.After(startTimeout):
		return nil, fmt.Errorf("profile: perf record did not start within %s: %s", startTimeout, rec.logTail())
	}
	ok = true
	return rec, nil
}

func (r *recording) logTail() string {
	b, _ := os.ReadFile(filepath.Join(r.dir, "record.log"))
	return lastLines(b, 2)
}

// stop ends perf record: SIGINT makes it flush its buffers and write the
// file's header; a perf that does not end is killed.
func (r *recording) stop() error {
	if r.cmd == nil || r.cmd.Process == nil {
		return nil
	}
	select {
	case <-r.exited:
		return r.waitErr
	default:
	}
	r.cmd.Process.Signal(os.Interrupt)
	select {
	case <-r.exited:
		return r.waitErr
	case <-time.After(30 * time.Second):
		r.cmd.Process.Kill()
		<-r.exited
		return errors.New("perf record did not stop within 30s of SIGINT; killed")
	}
}

func (r *recording) cleanup() {
	if r.cmd != nil && r.cmd.Process != nil {
		select {
		case <-r.exited:
		default:
			r.cmd.Process.Kill()
			<-r.exited
		}
	}
	for _, f := range []*os.File{r.ctl, r.ack, r.log} {
		if f != nil {
			f.Close()
		}
	}
	os.RemoveAll(r.dir)
}

// finish stops perf and reads what it recorded.
func (r *recording) finish() result.Profile {
	defer r.cleanup()
	p := result.Profile{Source: "perf record", CallGraph: r.o.CallGraph, SystemWide: r.o.SystemWide, Event: r.o.event()}
	if err := r.stop(); err != nil {
		var ee *exec.ExitError
		// perf record exits 130 or with SIGINT's status when stopped by
		// it; anything else is worth a warning, the data may still read.
		if !errors.As(err, &ee) {
			p.Warnings = append(p.Warnings, "perf record: "+err.Error())
		}
	}
	rp, err := Read(r.perf, filepath.Join(r.dir, "perf.data"), r.o)
	if err != nil {
		p.Unavailable = err.Error()
		if tail := r.logTail(); tail != "" {
			p.Unavailable += " (perf record: " + tail + ")"
		}
		return p
	}
	rp.Warnings = append(p.Warnings, rp.Warnings...)
	if rp.Event != "" && rp.Event != r.o.event() && !strings.HasPrefix(rp.Event, r.o.event()+":") {
		rp.Warnings = append(rp.Warnings, fmt.Sprintf("%s cannot be sampled here; perf sampled %s instead", r.o.event(), rp.Event))
	}
	return *rp
}

// Read turns a perf.data file into a profile: the symbol table from perf
// report (every symbol, by command, object and symbol) and, when the file
// has call graphs, the stacks from perf script.
func Read(perf, data string, o Options) (*result.Profile, error) {
	if perf == "" {
		var err error
		if perf, err = o.perf(); err != nil {
			return nil, err
		}
	}
	out, err := perfOutput(perf, "report", "--stdio", "-i", data, "-n", "-g", "none", "--no-children",
		"--percent-limit", "0", "--sort", "comm,dso,sym")
	if err != nil {
		return nil, err
	}
	if !bytes.Contains(out, []byte("%")) {
		return nil, errors.New("perf recorded no samples (a run shorter than one sampling period?)")
	}
	ps, err := ParseReport(data, out)
	if err != nil {
		return nil, fmt.Errorf("perf report of %s: %w", data, err)
	}
	p := ps[0]
	p.Source = "perf record"
	p.CallGraph, p.SystemWide = o.CallGraph, o.SystemWide
	// Every sample is listed: the table is whole and its samples exact.
	p.CutOff = 0
	var total int64
	for _, s := range p.Symbols {
		total += s.Samples
	}
	p.Samples, p.SamplesEstimated = total, false
	max := o.MaxSymbols
	if max <= 0 {
		max = 1000
	}
	if len(p.Symbols) > max {
		p.Symbols = p.Symbols[:max]
		p.CutOff = p.Symbols[max-1].Overhead
	}
	annotateHot(perf, data, p, o)
	if o.CallGraph {
		out, err := perfOutput(perf, "script", "-i", data, "-F", "comm,tid,period,event,ip,sym,dso")
		if err != nil {
			p.Warnings = append(p.Warnings, "call stacks: "+err.Error())
			return p, nil
		}
		sp, err := ParseScript(data, out)
		if err != nil {
			p.Warnings = append(p.Warnings, "call stacks: "+err.Error())
			return p, nil
		}
		p.Stacks, p.CallGraph = sp.Stacks, sp.CallGraph
		maxStacks := o.MaxStacks
		if maxStacks <= 0 {
			maxStacks = 2000
		}
		if len(p.Stacks) > maxStacks {
			var dropped int64
			for _, s := range p.Stacks[maxStacks:] {
				dropped += s.Samples
			}
			p.Stacks = p.Stacks[:maxStacks]
			p.Warnings = append(p.Warnings, fmt.Sprintf("kept the %d heaviest call stacks; %d samples in lighter ones left out", maxStacks, dropped))
		}
	}
	return p, nil
}

// perfOutput runs perf with args and returns its standard output; an
// error quotes its standard error.
func perfOutput(perf string, args ...string) ([]byte, error) {
	out, stderr, err := perfExec(perf, args...)
	if err != nil {
		return nil, fmt.Errorf("perf %s: %v: %s", args[0], err, lastLines(stderr, 2))
	}
	return out, nil
}

// perfExec runs perf with args and returns its standard output and error.
func perfExec(perf string, args ...string) (stdout, stderr []byte, err error) {
	var o, e bytes.Buffer
	cmd := exec.Command(perf, args...)
	cmd.Stdout, cmd.Stderr = &o, &e
	// perf report pages through less when stdout is a terminal and reads
	// ~/.perfconfig; neither applies to a pipe with PERF_CONFIG unset.
	cmd.Env = append(os.Environ(), "PERF_PAGER=cat", "PERF_CONFIG=/dev/null")
	err = cmd.Run()
	return o.Bytes(), e.Bytes(), err
}

func lastLines(b []byte, n int) string {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}
