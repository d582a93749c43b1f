package vm

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/kdelta/kdelta/internal/guest"
	"github.com/kdelta/kdelta/internal/result"
)

// The kexec path (Options.KexecFrom): qemu boots the loader kernel with an
// initramfs that carries, beside kdelta as /init and the job, a variant's
// kernel image and that variant's own initramfs. The loader's /init says
// its boot on the channel (a "boot" frame), loads the variant's kernel
// with kexec_file_load and reboots into it; qemu sees no reset, and the
// channel, a file on the host, goes on. The variant's /init says its boot
// too, then runs the job as any guest does. The host believes the result
// only when the second boot is the one asked for: another boot id, the
// variant's release and its command line. It is the path a lab agent's
// kexec backend takes on bare metal, run where a failed kernel costs a
// qemu and not a machine.

// A BootReport is what a guest says of the kernel it runs.
type BootReport = guest.BootReport

// ReadBootReport reads the running kernel's release, command line and
// boot id under root ("/" for this machine's).
func ReadBootReport(root string) BootReport { return guest.ReadBootReport(root) }

// LoadKernel loads the kernel image at kernel, with the initramfs at
// initrd ("" for none) and the command line, as the kernel the next
// reboot by kexec starts: a lab agent's boot step, the guest's own load.
func LoadKernel(kernel, initrd, cmdline string) error {
	return guest.LoadKernel(kernel, initrd, cmdline)
}

// A loader is how a variant boots by kexec: the loader kernel and the
// initramfs that carries the variant, and what the second boot must be.
type loader struct {
	kernel, initrd string
	want           KexecStep
}

// kernelCmdline is the whole command line a variant's kernel gets: the
// architecture's console, fixedAppend, then the user's.
func kernelCmdline(a *arch, user string) string {
	cmdline := a.console + " " + fixedAppend
	if user != "" {
		cmdline += " " + user
	}
	return cmdline
}

// prepareLoaders gives every variant a loader: the kernel ref (a file,
// deb: or rpm:) qemu boots first, with an initramfs of its own per
// variant kernel that carries the variant's kernel and initramfs.
func prepareLoaders(opt *Options, dir string, vars []*prepared) error {
	pkg, err := fetchKernel(opt, opt.KexecFrom, dir)
	if err != nil {
		return asKexecFrom(err)
	}
	image := opt.KexecFrom
	if pkg != nil {
		image = pkg.Image
	}
	lk, err := InspectKernel(image)
	if err != nil {
		return asKexecFrom(err)
	}
	made := map[string]string{} // loader initramfs by variant initramfs
	for _, v := range vars {
		if lk.Arch != v.kernel.Arch {
			return fmt.Errorf("--kexec-from %s: an %s kernel cannot kexec into %s, an %s kernel", opt.KexecFrom, lk.Arch, v.Kernel, v.kernel.Arch)
		}
		want := KexecStep{Release: v.kernel.Release, Cmdline: kernelCmdline(v.arch, v.Append)}
		v.loader = &loader{kernel: image, want: want}
		key := v.initrd + "\x00" + want.Cmdline
		if path, ok := made[key]; ok {
			v.loader.initrd = path
			continue
		}
		bin, err := guestBinary(opt.Binary, v.arch)
		if err != nil {
			return err
		}
		job := *opt.Job
		job.Kexec = &want
		path := filepath.Join(dir, fmt.Sprintf("loader-%d.cpio", len(made)))
		f, err := os.Create(path)
		if err != nil {
			return err
		}
		werr := writeInitramfs(f, &initramfs{Binary: bin, Job: &job, Release: lk.Release, Config: lk.Config,
			KexecKernel: v.kernel.Path, KexecInitrd: v.initrd})
		if cerr := f.Close(); werr == nil {
			werr = cerr
		}
		if werr != nil {
			return werr
		}
		made[key] = path
		v.loader.initrd = path
	}
	return nil
}

// asKexecFrom names --kexec-from in an error about a kernel, which the
// kernel readers say of --kernel.
func asKexecFrom(err error) error {
	if rest, ok := strings.CutPrefix(err.Error(), "--kernel"); ok {
		return errors.New("--kexec-from" + rest)
	}
	return fmt.Errorf("--kexec-from: %w", err)
}

// checkKexec checks the boot reports of a loader's qemu run against what
// the second boot must be, and returns the loader's and the second's.
func checkKexec(reports []BootReport, want KexecStep) (first, second BootReport, err error) {
	switch {
	case len(reports) == 0:
		return first, second, errors.New("kexec: the loader said nothing of its boot")
	case reports[0].KexecInto == "":
		return first, second, fmt.Errorf("kexec: the loader (%s) did not load the kernel", reports[0].Release)
	case len(reports) < 2:
		return reports[0], second, fmt.Errorf("kexec: the loader (%s) loaded %s, which said nothing of its boot", reports[0].Release, want.Release)
	}
	first, second = reports[0], reports[len(reports)-1]
	switch {
	case second.BootID == "" || second.BootID == first.BootID:
		err = fmt.Errorf("kexec: the boot id did not change (%q): %s did not boot", second.BootID, want.Release)
	case second.Release != want.Release:
		err = fmt.Errorf("kexec: %s booted, not %s", second.Release, want.Release)
	case second.Cmdline != want.Cmdline:
		err = fmt.Errorf("kexec: %s booted with %q, not %q", second.Release, second.Cmdline, want.Cmdline)
	}
	return first, second, err
}

// tagKexec records a kexec boot in its set: the loader's release as the
// kexec_from label, and in every run the boot ids of both boots.
func tagKexec(s *result.Set, first, second BootReport) {
	if s.Labels == nil {
		s.Labels = map[string]string{}
	}
	s.Labels["kexec_from"] = first.Release
	for _, b := range s.Benchmarks {
		for _, r := range b.Runs {
			if r.Info == nil {
				r.Info = map[string]string{}
			}
			r.Info["boot_id"] = second.BootID
			r.Info["kexec_from_boot_id"] = first.BootID
		}
	}
}
