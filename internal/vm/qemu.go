package vm

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/sys"
)

// fixedAppend is what kdelta adds before the user's command line, after
// the architecture's console (console=ttyS0 on x86), whose last lines
// explain a failure: panic=-1, so that a guest that panics reboots at
// once and qemu, which runs with -no-reboot, exits instead of hanging
// until the timeout. The user's arguments come after and win where they
// repeat one (the kernel takes the last console= as /dev/console and the
// last panic=).
const fixedAppend = "panic=-1"

// Markers on the guest console.
const (
	bootMarker  = "Linux version " // the kernel's first line
	guestMarker = "kdelta guest:"  // /init's lines
	panicMarker = "Kernel panic - not syncing"
	// /init's first line, and its line once the result set went out.
	initMarker = "kdelta guest: /init started"
	sentMarker = "kdelta guest: sent in"
	// A kernel that cannot power off (x86 without ACPI) halts instead.
	haltMarker = "reboot: System halted"
)

// sentGrace is how long a guest has, once its result set is out, to power
// off before kdelta ends qemu itself (and says so): a kernel whose
// power-off only halts would otherwise keep qemu, and the command, until
// the timeout.
const sentGrace = 10 * time.Second

// consoleLines is how many of the console's last lines are kept for
// error messages.
const consoleLines = 200

// A boot is one qemu run of a variant.
type boot struct {
	arch    *arch
	qemu    string
	kernel  string
	initrd  string
	append  string // the user's part of the command line
	accel   string // kvm or tcg
	cpus    int
	mem     string
	timeout time.Duration
	// console, when not nil, receives every line of the guest console.
	console io.Writer
	// deadline, when not zero, is how long the kernel has to print its
	// first line: the KVM probe.
	deadline time.Duration
	// kexec, when not nil, says the guest is a loader and what the boot
	// it kexecs into must be.
	kexec *KexecStep
	// rootfs is Options.RootFS: "host" shares the host's root over 9p.
	rootfs string

	// What the last run saw: ran, whether qemu started at all; started,
	// whether the kernel printed its first line (or /init its first);
	// stderr, what qemu wrote there; exit, qemu's exit status when it
	// ended by itself. They tell a KVM that cannot start a kernel from a
	// kernel that fails.
	ran     bool
	started bool
	stderr  string
	exit    error
	// initStarted says /init ran; ended, when not "", says kdelta ended
	// qemu after the guest sent its result and did not power off.
	initStarted bool
	ended       string
}

// errNotBooted says a kernel printed nothing within the boot deadline.
var errNotBooted = errors.New("the kernel did not start")

// kvmFailure says, after a KVM boot that failed with err before the
// kernel's first line, how it failed, in qemu's words where it left some:
// " within 5s (qemu's line)" when the deadline passed, ": qemu's line
// (qemu: signal: aborted)" when qemu ended by itself.
func (b *boot) kvmFailure(err error) string {
	said := qemuError(b.stderr)
	if said == "" {
		said = lastLine(b.stderr)
	}
	if errors.Is(err, errNotBooted) {
		s := fmt.Sprintf(" within %s", b.deadline)
		if said != "" {
			s += " (" + said + ")"
		}
		return s
	}
	if said == "" {
		said = "qemu ended before the kernel's first line"
	}
	if b.exit != nil {
		said += fmt.Sprintf(" (qemu: %v)", b.exit)
	}
	return ": " + said
}

// A bootError is a failed boot with the console's last lines.
type bootError struct {
	msg     string
	console []string
}

func (e *bootError) Error() string {
	if len(e.console) == 0 {
		return e.msg + " (the console is empty)"
	}
	return e.msg + "; console: " + strings.Join(e.console, " | ")
}

// args returns qemu's command line for b, writing the guest's channel to
// chanPath.
func (b *boot) args(chanPath string) []string {
	cmdline := kernelCmdline(b.arch, b.append)
	a := append([]string{"-accel", b.accel}, b.arch.machine...)
	switch {
	case b.accel == "kvm":
		a = append(a, "-cpu", "host")
	case b.arch.tcgCPU != "":
		a = append(a, "-cpu", b.arch.tcgCPU)
	}
	a = append(a,
		"-smp", fmt.Sprint(b.cpus),
		"-m", b.mem,
		"-nodefaults", "-no-user-config",
		"-display", "none",
		"-monitor", "none",
		"-no-reboot",
	)
	a = append(a, b.arch.ports(chanPath)...)
	if b.rootfs == RootFSHost {
		a = append(a, rootfsArgs(b.arch)...)
	}
	return append(a,
		"-kernel", b.kernel,
		"-initrd", b.initrd,
		"-append", cmdline,
	)
}

// run boots b once and returns the result set the guest sent. qemu runs in
// a process group of its own with PR_SET_PDEATHSIG, and the group is
// killed whatever happens, so no qemu outlives the call or kdelta.
func (b *boot) run(ctx context.Context, dir string) (*result.Set, error) {
	b.ran, b.started, b.stderr, b.exit, b.initStarted, b.ended = false, false, "", nil, false, ""
	chanPath := filepath.Join(dir, "channel")
	os.Remove(chanPath)
	cmd := exec.Command(b.qemu, b.args(chanPath)...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	con := newConsole()
	con.copy = b.console
	if err := sys.DefaultSpawner().Start(cmd, sys.SpawnOptions{NewGroup: true, Pdeathsig: syscall.SIGKILL}); err != nil {
		return nil, fmt.Errorf("start %s: %w", b.qemu, err)
	}
	b.ran = true
	pgid := cmd.Process.Pid
	defer sys.KillGroup(pgid)
	readDone := make(chan struct{})
	go func() {
		con.read(stdout)
		close(readDone)
	}()
	exited := make(chan error, 1)
	go func() {
		<-readDone // Wait closes the pipe: read it to the end first.
		exited <- cmd.Wait()
	}()

	var deadline <-chan time.Time
	if b.deadline > 0 {
		t := time.NewTimer(b.deadline)
		defer t.Stop()
		deadline = t.C
	}
	timeout := time.NewTimer(b.timeout)
	defer timeout.Stop()
	var grace <-chan time.Time
	var failure error
	var waitErr error
	booted := con.booted
	panicked := con.panicked
	sent, halted := con.sent, con.halted
	var ending <-chan time.Time
	var sentAt time.Time
wait:
	for {
		select {
		case waitErr = <-exited:
			break wait
		case <-booted:
			booted, deadline = nil, nil
		case <-deadline:
			failure = errNotBooted
			sys.KillGroup(pgid)
		case <-panicked:
			// panic=-1 ends qemu at once; a command line that overrides
			// it leaves the guest spinning, so it goes after a moment
			// for the rest of the panic message.
			panicked = nil
			grace = time.After(time.Second)
		case <-grace:
			sys.KillGroup(pgid)
		case <-sent:
			sent, sentAt = nil, time.Now()
			// A halt seen first (both lines can arrive together) keeps
			// its one second: the grace is for a guest still running.
			if halted != nil {
				ending = time.After(sentGrace)
			}
		case <-halted:
			// Halted, not powered off: nothing more will come.
			halted = nil
			if sentAt.IsZero() {
				sentAt = time.Now()
			}
			ending = time.After(time.Second)
		case <-ending:
			ending = nil
			b.ended = fmt.Sprintf("the guest did not power off %.0f s after it sent its result set; kdelta ended qemu", time.Since(sentAt).Seconds())
			if con.saw(haltMarker) {
				b.ended = "the guest halted instead of powering off (on x86 a kernel without CONFIG_ACPI cannot); kdelta ended qemu"
			}
			sys.KillGroup(pgid)
		case <-timeout.C:
			failure = &bootError{msg: fmt.Sprintf("guest timed out after %s; qemu killed", b.timeout)}
			sys.KillGroup(pgid)
		case <-ctx.Done():
			failure = ctx.Err()
			sys.KillGroup(pgid)
		}
	}
	// The console was read to its end before qemu's exit was reported,
	// so whether the kernel started is known, and so is qemu's stderr.
	select {
	case <-con.booted:
		b.started = true
	default:
	}
	b.initStarted = con.saw(initMarker)
	b.stderr = stderr.String()
	if failure == nil {
		b.exit = waitErr
	}
	if failure != nil {
		if be, ok := failure.(*bootError); ok {
			be.console = con.tail(8)
		}
		return nil, failure
	}
	data, rerr := os.ReadFile(chanPath)
	frames, perr := parseFrames(data)
	var reports []BootReport
	for _, f := range frames {
		switch f.Kind {
		case frameBoot:
			var r BootReport
			if err := json.Unmarshal(f.Payload, &r); err != nil {
				return nil, &bootError{msg: "guest sent a boot report that does not decode: " + err.Error(), console: con.tail(5)}
			}
			reports = append(reports, r)
		case frameResult:
			set, err := decodeResult(f.Payload)
			if err != nil {
				return nil, &bootError{msg: "guest sent a result that does not decode: " + err.Error(), console: con.tail(5)}
			}
			if b.kexec != nil {
				first, second, err := checkKexec(reports, *b.kexec)
				if err != nil {
					return nil, err
				}
				tagKexec(set, first, second)
			}
			return set, nil
		case frameError:
			// The guest says what went wrong itself: no console needed.
			return nil, errors.New("guest: " + firstLine(string(f.Payload)))
		}
	}
	var msg string
	// Of a loader's run, which of the two boots went wrong.
	kexecSaid := ""
	if b.kexec != nil {
		if _, _, err := checkKexec(reports, *b.kexec); err != nil {
			kexecSaid = err.Error() + "; "
		}
	}
	switch {
	case con.panicLine() != "":
		msg = kexecSaid + "guest kernel panicked: " + con.panicLine()
		con.mu.Lock()
		ctxLines := con.panicContext
		con.mu.Unlock()
		return nil, &bootError{msg: msg, console: ctxLines}
	case qemuError(stderr.String()) != "":
		msg = qemuError(stderr.String())
	case rerr != nil:
		msg = fmt.Sprintf("guest sent nothing (%v)", rerr)
	case errors.Is(perr, errNoFrame):
		msg = "guest sent no result"
	default:
		msg = "guest sent garbage: " + perr.Error()
	}
	msg = kexecSaid + msg
	if waitErr != nil {
		msg += fmt.Sprintf(" (qemu: %v)", waitErr)
	}
	return nil, &bootError{msg: msg, console: con.tail(8)}
}

// decodeResult reads a result frame's payload: a gzip-compressed result
// set.
func decodeResult(p []byte) (*result.Set, error) {
	zr, err := gzip.NewReader(bytes.NewReader(p))
	if err != nil {
		return nil, err
	}
	data, err := io.ReadAll(io.LimitReader(zr, 1<<30))
	if err != nil {
		return nil, err
	}
	return result.Decode("guest result", data)
}

// qemuError returns qemu's own error line from its standard error, if it
// wrote one (a kernel it cannot load, an accelerator it cannot use).
// Warnings about CPU features the host lacks are left out.
func qemuError(stderr string) string {
	for _, l := range strings.Split(stderr, "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.Contains(l, "warning:") {
			continue
		}
		return l
	}
	return ""
}

// lastLine returns the last line of s that is not blank.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}

// A console follows the guest's first serial port: it keeps the last
// lines and tells when the kernel started and when it panicked.
type console struct {
	copy     io.Writer
	mu       sync.Mutex
	lines    []string
	panicMsg string
	// panicContext holds the lines before the panic line.
	panicContext []string
	booted       chan struct{}
	panicked     chan struct{}
	bootOnce     sync.Once
	panOnce      sync.Once
	// sent and halted close at /init's line that its result went out and
	// at the kernel's that it halted; seen holds the markers seen.
	sent, halted         chan struct{}
	sentOnce, haltedOnce sync.Once
	seen                 map[string]bool
}

func newConsole() *console {
	return &console{booted: make(chan struct{}), panicked: make(chan struct{}),
		sent: make(chan struct{}), halted: make(chan struct{}), seen: map[string]bool{}}
}

// saw tells whether a console line held marker (initMarker, sentMarker,
// haltMarker).
func (c *console) saw(marker string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.seen[marker]
}

func (c *console) read(r io.Reader) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for sc.Scan() {
		if c.copy != nil {
			fmt.Fprintf(c.copy, "%s\n", strings.TrimRight(sc.Text(), "\r"))
		}
		l := cleanLine(sc.Text())
		if l == "" {
			continue
		}
		c.mu.Lock()
		c.lines = append(c.lines, l)
		if len(c.lines) > consoleLines {
			c.lines = c.lines[len(c.lines)-consoleLines:]
		}
		if c.panicMsg == "" && strings.Contains(l, panicMarker) {
			c.panicMsg = l[strings.Index(l, panicMarker):]
			// What led to the panic says more than the stack after it.
			n := len(c.lines) - 1
			c.panicContext = append([]string(nil), c.lines[max(0, n-5):n]...)
		}
		c.mu.Unlock()
		if strings.Contains(l, bootMarker) || strings.Contains(l, guestMarker) {
			c.bootOnce.Do(func() { close(c.booted) })
		}
		if strings.Contains(l, panicMarker) {
			c.panOnce.Do(func() { close(c.panicked) })
		}
		for _, m := range []string{initMarker, sentMarker, haltMarker} {
			if strings.Contains(l, m) {
				c.mu.Lock()
				c.seen[m] = true
				c.mu.Unlock()
				switch m {
				case sentMarker:
					c.sentOnce.Do(func() { close(c.sent) })
				case haltMarker:
					c.haltedOnce.Do(func() { close(c.halted) })
				}
			}
		}
	}
	io.Copy(io.Discard, r)
}

// tail returns the last n lines.
func (c *console) tail(n int) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.lines) > n {
		return append([]string(nil), c.lines[len(c.lines)-n:]...)
	}
	return append([]string(nil), c.lines...)
}

func (c *console) panicLine() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.panicMsg
}

// cleanLine drops the escape sequences and carriage returns the firmware
// and the kernel write, and the kernel's timestamp, keeping what a user
// reads.
func cleanLine(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case ch == 0x1b:
			// ESC [ params letter, or ESC letter.
			j := i + 1
			if j < len(s) && s[j] == '[' {
				j++
				for j < len(s) && (s[j] < 0x40 || s[j] > 0x7e) {
					j++
				}
			}
			i = j
		case ch == '\r' || ch < 0x20 && ch != '\t':
		default:
			b.WriteByte(ch)
		}
	}
	l := strings.TrimSpace(b.String())
	if strings.HasPrefix(l, "[") {
		if k := strings.IndexByte(l, ']'); k > 0 && k < 16 {
			l = strings.TrimSpace(l[k+1:])
		}
	}
	return l
}
