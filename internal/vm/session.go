package vm

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/kdelta/kdelta/internal/result"
)

// A session is the boots of one command: its variants prepared, the
// accelerator it settled on, and each variant's set so far.
type session struct {
	opt   *Options
	log   io.Writer
	dir   string
	vars  []*prepared
	probe string
	accel string
	// settled says accel was chosen for this machine's own kernels.
	settled bool
	// kvmStarted is set once KVM has started a kernel in this session:
	// later boots need no deadline, and a later failure is no reason to
	// remember KVM as broken.
	kvmStarted bool
	// initSeen is set once a boot of this session has reached /init.
	initSeen   bool
	deadline   time.Duration
	sets       []*result.Set
	boots      []int // per variant
	n, planned int   // boots so far, and those planned (opt.Boots rounds)
}

// startSession checks opt, prepares the variants (kernels inspected,
// packages fetched, initramfs written) and settles the accelerator, said
// once on opt.Log.
func startSession(opt *Options) (*session, error) {
	if err := checkOptions(opt); err != nil {
		return nil, err
	}
	s := &session{opt: opt, log: logOf(opt), probe: probeFile(), accel: "tcg", deadline: opt.BootDeadline}
	var err error
	if s.dir, err = os.MkdirTemp("", "kdelta-vm-"); err != nil {
		return nil, err
	}
	if s.vars, err = prepare(opt, s.dir, s.emulated); err != nil {
		s.close()
		return nil, err
	}
	if opt.KexecFrom != "" {
		if err := prepareLoaders(opt, s.dir, s.vars); err != nil {
			s.close()
			return nil, err
		}
	}
	// KVM serves the variants of this machine's architecture; the others
	// are emulated, said once.
	foreign := ""
	for _, v := range s.vars {
		if !v.arch.native() && foreign == "" {
			foreign = v.arch.Name
		}
	}
	if foreign != "" {
		fmt.Fprintf(s.log, "kdelta: vm: %s kernels boot under TCG (emulated: timings do not measure the hardware)\n", foreign)
	}
	said := map[string]bool{}
	for _, v := range s.vars {
		for _, n := range v.tcgNotes {
			if !said[n] {
				said[n] = true
				fmt.Fprintf(s.log, "kdelta: vm: %s\n", n)
			}
		}
	}
	if s.deadline == 0 {
		s.deadline = DefaultBootDeadline
	}
	s.sets = make([]*result.Set, len(s.vars))
	s.boots = make([]int, len(s.vars))
	s.planned = opt.Boots * len(s.vars)
	return s, nil
}

func (s *session) close() { os.RemoveAll(s.dir) }

// emulated tells whether the kernels of architecture a boot under TCG:
// every other architecture's does, and this machine's as the accelerator
// is settled (initialAccel), at the first of them.
func (s *session) emulated(a *arch, qemu string) (bool, error) {
	if !a.native() {
		return true, nil
	}
	if !s.settled {
		acc, err := initialAccel(s.opt.Accel, qemu, s.probe, s.log)
		if err != nil {
			return false, err
		}
		s.accel, s.settled = acc, true
	}
	return s.accel == "tcg", nil
}

// boot boots variant vi once and merges what came home into its set. A
// KVM boot that fails before the kernel's first line is booted again
// under TCG when the accelerator is auto, and the session keeps TCG.
func (s *session) boot(ctx context.Context, vi int) error {
	opt, v := s.opt, s.vars[vi]
	s.n++
	b := &boot{arch: v.arch, qemu: v.qemu, kernel: v.Kernel, initrd: v.initrd, append: v.Append,
		accel: s.accel, cpus: opt.CPUs, mem: opt.Mem, timeout: opt.Timeout, console: opt.Console, rootfs: opt.RootFS}
	if !v.arch.native() {
		b.accel = "tcg"
	}
	if l := v.loader; l != nil {
		// qemu boots the loader, which kexecs into the variant.
		b.kernel, b.initrd, b.append, b.kexec = l.kernel, l.initrd, "", &l.want
	}
	if b.accel == "kvm" && !s.kvmStarted {
		b.deadline = s.deadline
	}
	start := time.Now()
	set, err := b.run(ctx, s.dir)
	if b.accel == "kvm" && b.started && !s.kvmStarted {
		s.kvmStarted = true
		rememberKVM(s.probe, v.qemu, true)
	}
	// A KVM boot that failed before the kernel's first line, whether qemu
	// aborted, exited or stayed silent until the deadline: KVM's failure,
	// unless TCG fails the same way.
	if b.accel == "kvm" && !b.started && b.ran && err != nil && ctx.Err() == nil {
		why := b.kvmFailure(err)
		if opt.Accel != "auto" {
			if !s.kvmStarted {
				rememberKVM(s.probe, v.qemu, false)
			}
			err = fmt.Errorf("KVM did not start the kernel%s (use --accel tcg or auto)", why)
		} else {
			fmt.Fprintf(s.log, "kdelta: vm: KVM did not start the kernel%s; falling back to TCG for this boot and the rest (emulated: timings do not measure the hardware)\n", why)
			s.accel = "tcg"
			b.accel, b.deadline = "tcg", 0
			start = time.Now()
			set, err = b.run(ctx, s.dir)
			if b.started && !s.kvmStarted {
				// TCG started the kernel KVM did not: later sessions go
				// to TCG at once.
				rememberKVM(s.probe, v.qemu, false)
			}
		}
	}
	// A TCG guest whose kernel started but never reached kdelta's /init,
	// when another boot of this session did: an emulated vCPU starved
	// early in boot (an IO-APIC timer check, an RCU stall), seen now and
	// then on a loaded host. It boots once more, and says so; a kernel
	// that hangs every time fails the second boot too.
	if err != nil && ctx.Err() == nil && b.accel == "tcg" && b.started && !b.initStarted && s.initSeen {
		fmt.Fprintf(s.log, "kdelta: vm: %s %s: the kernel started under TCG but never reached kdelta's /init (%v); booting it once more\n", v.name, v.kernel.Release, err)
		start = time.Now()
		set, err = b.run(ctx, s.dir)
	}
	s.initSeen = s.initSeen || b.initStarted
	count := fmt.Sprintf("%d/%d", s.n, s.planned)
	if s.n > s.planned {
		count = fmt.Sprintf("%d (until conclusive)", s.n)
	}
	what := fmt.Sprintf("vm: boot %s: %s %s %s", count, v.name, v.kernel.Release, quoteCmdline(v.Append))
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("%s: interrupted: %w", what, ctx.Err())
		}
		if !b.initStarted {
			err = notOnNote(err, v.pkg)
		}
		return fmt.Errorf("%s (%s): %w", what, b.accel, err)
	}
	if b.ended != "" {
		fmt.Fprintf(s.log, "kdelta: %s: %s\n", what, b.ended)
	}
	fmt.Fprintf(s.log, "kdelta: %s (%s): result in %.1f s\n", what, b.accel, time.Since(start).Seconds())
	s.sets[vi] = MergeBoot(s.sets[vi], set, s.boots[vi])
	s.boots[vi]++
	label(s.sets[vi], opt, v, b.accel, s.boots[vi])
	return nil
}
