// Package vm runs kdelta's workloads on a kernel that is not the running
// one: it boots the kernel image in qemu with an initramfs built on the
// fly (cpio newc, uncompressed) that holds the static kdelta binary as
// /init and the job as a file, lets the guest run the job with the normal
// runner and take its own fingerprint, and brings the result set home
// over the guest's second serial port, framed with a length and a
// SHA-256. Several variants (kernel and command line pairs) boot in turn,
// A B A B ..., so that the host's drift falls on every variant alike.
package vm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/kdelta/kdelta/internal/guest"
	"github.com/kdelta/kdelta/internal/kbuild"
	"github.com/kdelta/kdelta/internal/outfile"
	"github.com/kdelta/kdelta/internal/result"
)

// A Variant is one kernel image with one command line.
type Variant struct {
	Kernel string
	// Append is the user's kernel command line, recorded as the result
	// set's cmdline label exactly as given. qemu passes the kernel
	// fixedAppend before it.
	Append string
}

// Options say what to boot and what to run.
type Options struct {
	Variants []Variant
	// Boots is how many times each variant boots; the boots alternate
	// between variants.
	Boots int
	// Until adds boots after the first Boots rounds while a verdict
	// between the variants is inconclusive (--until-conclusive).
	Until Until
	CPUs  int
	Mem   string // qemu's -m: "1G", "512M"
	// Accel is kvm, tcg or auto. auto takes KVM when it can create a VM
	// and has not failed to start a kernel on this host since it booted;
	// a KVM boot that fails before the kernel's first console line (qemu
	// aborts or exits, or the console stays silent for BootDeadline) is
	// booted again under TCG, which the later boots keep, said once on
	// Log with qemu's own line, and remembered for later sessions.
	Accel string
	// Modules is a directory of the kernels' modules (a lib/modules/RELEASE
	// tree, or a directory holding lib/modules/RELEASE); "" for none.
	Modules string
	Job     *Job
	// KexecFrom, when not "", is the kernel (a file, deb: or rpm:) that
	// qemu boots first: its /init loads the variant's kernel with
	// kexec_file_load and reboots into it, where the job runs, and the
	// boot counts only if the kernel that comes up is the variant's
	// (another boot id, its release, its command line). It tests the
	// kexec path a lab agent takes on bare metal.
	KexecFrom string
	// Timeout bounds each boot, from qemu's start to the guest's power-off.
	Timeout time.Duration
	// BootDeadline is how long KVM has to start the kernel (its first
	// console line) before auto falls back to TCG; 0 means 5 s. Once KVM
	// has started a kernel, later boots have no deadline.
	BootDeadline time.Duration
	// Binary is the static kdelta that becomes the guest's /init; "" means
	// this executable.
	Binary string
	// Arch is the architecture of the kernels (amd64, arm64, ppc64le,
	// s390x); "" means each image's own, read from its header.
	Arch string
	// Qemu is the emulator; "" means the architecture's (qemu-system-x86_64
	// for amd64) from $PATH.
	Qemu string
	// Labels are added to every result set.
	Labels map[string]string
	// Console, when not nil, receives the guest consoles, whole.
	Console io.Writer
	// Log receives one line per boot and the notices (the fall-back to
	// TCG, said once); nil discards them.
	Log io.Writer
	// Given tells whether a flag was given, by its name (Apply sets it
	// from CommandLine.Given); nil: none was.
	Given func(flag string) bool
	// Build says how kernels given as git:REV or tree:DIR are built
	// (--config); its Arch defaults to Arch.
	Build kbuild.Options
	// RootFS is the guest's root file system: "" or "initramfs", the
	// lean initramfs alone (kdelta and the job); "host", the host's own
	// root, read-only over 9p, with kdelta still /init (rootfs.go).
	RootFS string
}

// Defaults of Options.
const (
	DefaultCPUs         = 2
	DefaultMem          = "1G"
	DefaultTimeout      = 30 * time.Minute
	DefaultBootDeadline = 5 * time.Second
)

// TCGWarning is recorded in the result sets of boots under TCG.
const TCGWarning = "timings emulated under TCG (qemu without KVM): compare them only with other TCG results; they do not measure the hardware"

// ErrQemuMissing is returned when qemu-system-x86_64 cannot be found.
var ErrQemuMissing = errors.New("qemu-system-x86_64 not found: install it (Debian, Ubuntu: apt-get install qemu-system-x86; Fedora: dnf install qemu-system-x86-core), or run scripts/vm-kernel.sh, which does")

var memRE = regexp.MustCompile(`^[0-9]+[KMGTkmgt]?$`)

// variantName is the letter of variant i: A, B, ... Z, then V27, V28.
func variantName(i int) string {
	if i < 26 {
		return string(rune('A' + i))
	}
	return fmt.Sprintf("V%d", i+1)
}

// prepared is a variant ready to boot: its kernel inspected, the qemu of
// its architecture found, its initramfs written.
type prepared struct {
	Variant
	name   string
	kernel *Kernel
	arch   *arch
	qemu   string
	initrd string
	pkg    *kernelPackage // the package the kernel came from, if any
	// tcgNotes say how the job was cut to what TCG emulates in good
	// time (tcgJob), recorded among the set's warnings.
	tcgNotes []string
	// loader, with Options.KexecFrom, boots the variant by kexec.
	loader *loader
}

// logOf is opt.Log, or a discard.
func logOf(opt *Options) io.Writer {
	if opt.Log == nil {
		return io.Discard
	}
	return opt.Log
}

// Run boots every variant opt.Boots times, alternating (A B A B ...), and
// then, with opt.Until.On, each variant whose verdict against the first
// is still inconclusive once more, in turn, until every verdict is
// conclusive or opt.Until.MaxBoots (Until); it runs the job in each guest
// and returns one result set per variant, holding the runs of all its
// boots; each run carries its boot index in Info["boot"]. The sets are
// labelled kernel (the guest's release), cmdline (the variant's
// --append), variant (its letter), accel and boots, plus opt.Labels. On a
// failed boot it returns the sets of the variants so far, incomplete, and
// an error that names the boot and carries the guest console's last
// lines.
func Run(ctx context.Context, opt *Options) ([]*result.Set, error) {
	s, err := startSession(opt)
	if err != nil {
		return nil, err
	}
	defer s.close()
	x := &untilBoots{s: s, u: &opt.Until, questions: versusFirst(opt.Until.CompareOptions())}
	if err := x.schedule(ctx); err != nil {
		return finished(s.sets), err
	}
	return s.sets, nil
}

// finished returns the sets that hold at least one boot.
func finished(sets []*result.Set) []*result.Set {
	var out []*result.Set
	for _, s := range sets {
		if s != nil {
			s.Complete = false
			out = append(out, s)
		}
	}
	return out
}

func quoteCmdline(s string) string {
	if s == "" {
		return "(no --append)"
	}
	return strconv.Quote(s)
}

func checkOptions(opt *Options) error {
	if len(opt.Variants) == 0 {
		return errors.New("vm: no --kernel given")
	}
	if opt.Job == nil {
		return errors.New("vm: nothing to run: give the guest's command after --, e.g. -- run syscall -r 5")
	}
	if _, err := opt.Job.Workloads(); err != nil {
		return fmt.Errorf("vm: guest run: %w", err)
	}
	if opt.Boots < 1 {
		return fmt.Errorf("--boots: must be at least 1, got %d", opt.Boots)
	}
	if err := opt.Until.check(opt.Boots, len(opt.Variants), opt.Given); err != nil {
		return err
	}
	if opt.CPUs < 1 {
		return fmt.Errorf("--cpus: must be at least 1, got %d", opt.CPUs)
	}
	if opt.Mem == "" {
		opt.Mem = DefaultMem
	}
	if !memRE.MatchString(opt.Mem) {
		return fmt.Errorf("--mem: %q is not a size (e.g. 1G, 512M)", opt.Mem)
	}
	switch opt.Accel {
	case "":
		opt.Accel = "auto"
	case "auto", "kvm", "tcg":
	default:
		return fmt.Errorf("--accel: %q is not kvm, tcg or auto", opt.Accel)
	}
	if opt.Timeout <= 0 {
		opt.Timeout = DefaultTimeout
	}
	if err := checkRootFS(opt.RootFS); err != nil {
		return err
	}
	if opt.RootFS == RootFSHost && opt.KexecFrom != "" {
		return fmt.Errorf("--rootfs host: not with --kexec-from")
	}
	return nil
}

// fetchKernel fetches (deb:) or unpacks (rpm:) the kernel package ref
// names into dir; it returns nil for a ref that names an image file.
func fetchKernel(opt *Options, ref, dir string) (*kernelPackage, error) {
	if file, ok := strings.CutPrefix(ref, rpmPrefix); ok {
		return unpackRPM(file, dir)
	}
	if strings.HasPrefix(ref, debPrefix) {
		return fetchDeb(ref, func(s string) { fmt.Fprintf(logOf(opt), "kdelta: vm: %s\n", s) })
	}
	if kbuild.IsRef(ref) {
		return buildKernel(opt, ref)
	}
	return nil, nil
}

// prepare inspects every kernel and writes one initramfs per kernel, its
// job the one a TCG boot of its architecture runs where emulated tells it
// boots under TCG (tcgJob).
func prepare(opt *Options, dir string, emulated func(*arch, string) (bool, error)) ([]*prepared, error) {
	var out []*prepared
	initrds := map[string]string{}
	notes := map[string][]string{} // by kernel: how its job was cut to TCG's
	needs := map[string]bool{}
	if specs, err := opt.Job.Workloads(); err == nil {
		for _, sp := range specs {
			for _, m := range guest.WorkloadModules[sp.Workload.Name()] {
				needs[m.Name] = true
			}
		}
	}
	fetched := map[string]*kernelPackage{}
	for i, v := range opt.Variants {
		pkg := fetched[v.Kernel]
		if pkg == nil {
			var err error
			if pkg, err = fetchKernel(opt, v.Kernel, dir); err != nil {
				return nil, err
			}
			fetched[v.Kernel] = pkg
		}
		if pkg != nil {
			v.Kernel = pkg.Image
		}
		k, err := InspectKernel(v.Kernel)
		if err != nil {
			return nil, err
		}
		p := &prepared{Variant: v, name: variantName(i), kernel: k, pkg: pkg}
		if p.arch, p.qemu, err = archOf(opt, k); err != nil {
			return nil, err
		}
		if path, ok := initrds[v.Kernel]; ok {
			p.initrd, p.tcgNotes = path, notes[v.Kernel]
			out = append(out, p)
			continue
		}
		bin, err := guestBinary(opt.Binary, p.arch)
		if err != nil {
			return nil, err
		}
		job := opt.Job
		if opt.RootFS == RootFSHost {
			c := *job
			c.RootFS = RootFSHost
			job = &c
		}
		if opt.KexecFrom != "" {
			// The boot a loader kexecs into says what it is.
			c := *job
			c.ReportBoot = true
			job = &c
		}
		if tcg, err := emulated(p.arch, p.qemu); err != nil {
			return nil, err
		} else if tcg {
			job, p.tcgNotes = tcgJob(job, p.arch)
		}
		notes[v.Kernel] = p.tcgNotes
		r := &initramfs{Binary: bin, Job: job, Release: k.Release, Config: k.Config}
		modules := opt.Modules
		if modules == "" && pkg != nil {
			modules = pkg.Dir // the package's own lib/modules
		}
		if modules != "" && len(needs) > 0 {
			modDir, err := moduleTree(modules, k.Release)
			if err != nil {
				return nil, err
			}
			var names []string
			for n := range needs {
				names = append(names, n)
			}
			sort.Strings(names)
			if r.Modules, err = resolveModules(modDir, names); err != nil {
				return nil, err
			}
		}
		path := fmt.Sprintf("%s/initramfs-%d.cpio", dir, len(initrds))
		f, err := os.Create(path)
		if err != nil {
			return nil, err
		}
		werr := writeInitramfs(f, r)
		if cerr := f.Close(); werr == nil {
			werr = cerr
		}
		if werr != nil {
			return nil, werr
		}
		initrds[v.Kernel] = path
		p.initrd = path
		out = append(out, p)
	}
	return out, nil
}

// MergeBoot adds the runs of boot bi (its result set, got) to the
// variant's set so far (nil for the first boot). Runs are numbered on
// across boots and carry their boot index. Each boot is a session of its
// own: a run the guest recorded without one (an older guest) gets its
// boot's. It is the one merge of boots: kdelta vm --boots and bisect-run
// --vm's batches both go through it.
func MergeBoot(into, got *result.Set, bi int) *result.Set {
	tag := func(s *result.Set) {
		for _, b := range s.Benchmarks {
			for _, r := range b.Runs {
				if r.Info == nil {
					r.Info = map[string]string{}
				}
				r.Info["boot"] = strconv.Itoa(bi)
				if r.Session == "" {
					r.Session = fmt.Sprintf("%s boot %d", s.ID, bi)
				}
			}
		}
	}
	tag(got)
	if into == nil {
		return got
	}
	for i, b := range got.Benchmarks {
		if i >= len(into.Benchmarks) || into.Benchmarks[i].Key() != b.Key() {
			into.Warnings = appendNew(into.Warnings, fmt.Sprintf("boot %d: benchmark %s does not match the first boot's; left out", bi, b.Key()))
			continue
		}
		ib := into.Benchmarks[i]
		measured, warm := 0, 0
		for _, r := range ib.Runs {
			if r.Warmup {
				warm++
			} else if r.Status != result.StatusSkipped {
				measured++
			}
		}
		for _, r := range b.Runs {
			if r.Status == result.StatusSkipped && ib.Skipped != "" {
				continue // skipped for the same reason in every boot
			}
			if r.Warmup {
				r.Index += warm
			} else {
				r.Index += measured
			}
			ib.Runs = append(ib.Runs, r)
		}
		if ib.Skipped == "" {
			ib.Skipped = b.Skipped
		}
	}
	for _, w := range got.Warnings {
		into.Warnings = appendNew(into.Warnings, w)
	}
	into.Complete = into.Complete && got.Complete
	return into
}

// label sets the labels and warnings that say where the set was
// measured, after its boots-th boot.
func label(s *result.Set, opt *Options, v *prepared, accel string, boots int) {
	if s.Labels == nil {
		s.Labels = map[string]string{}
	}
	// The guest set host from its own hostname; the host is this machine.
	if h, err := os.Hostname(); err == nil {
		s.Labels["host"] = h
	}
	if s.Env != nil && s.Env.Kernel.Release.Known() {
		s.Labels["kernel"] = s.Env.Kernel.Release.Value
	} else if v.kernel.Release != "" {
		s.Labels["kernel"] = v.kernel.Release
	}
	if v.pkg != nil {
		pkg := v.pkg.Name
		if v.pkg.Version != "" {
			pkg += "=" + v.pkg.Version
		}
		s.Labels["kernel_package"] = pkg
		if v.pkg.build != nil {
			labelBuild(s, v.pkg.build)
		}
	}
	s.Labels["cmdline"] = v.Append
	s.Labels["variant"] = v.name
	s.Labels["vm"] = "qemu"
	s.Labels["boots"] = strconv.Itoa(boots)
	if old, ok := s.Labels["accel"]; ok && old != accel {
		accel = old + "," + accel
	}
	s.Labels["accel"] = accel
	for k, val := range opt.Labels {
		s.Labels[k] = val
	}
	if strings.Contains(accel, "tcg") {
		s.Warnings = appendNew(s.Warnings, TCGWarning)
	}
	for _, n := range v.tcgNotes {
		s.Warnings = appendNew(s.Warnings, n)
	}
	if opt.CPUs == 1 {
		s.Warnings = appendNew(s.Warnings, "the guest has one CPU: membarrier and synchronize_rcu wait for no other CPU, so RCU latencies are not comparable with multi-CPU runs")
	}
}

func appendNew(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}

// OpenOutputs opens what the command line asked for before anything boots,
// so a bad path stops the command first: the console file (into Console)
// and the directory the sets are saved in. The returned func closes them.
func (o *Options) OpenOutputs(console, outDir string) (func(), error) {
	done := func() {}
	if console != "" {
		// A log written as it comes, not replaced whole: outfile's rules
		// for what may be written (no link, directory or block device),
		// then truncated in place like a shell's redirection.
		if err := outfile.Check(console); err != nil {
			return nil, fmt.Errorf("--console %s: %w", console, err)
		}
		f, err := os.Create(console)
		if err != nil {
			return nil, fmt.Errorf("--console: %w", err)
		}
		o.Console, done = f, func() { f.Close() }
	}
	if outDir != "" {
		if err := os.MkdirAll(outDir, 0o755); err != nil {
			done()
			return nil, fmt.Errorf("-o %s: %w", outDir, err)
		}
	}
	return done, nil
}
