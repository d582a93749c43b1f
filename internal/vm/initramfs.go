package vm

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/kdelta/kdelta/internal/guest"
)

// Paths inside the guest.
const (
	guestJob  = guest.JobFile
	guestInit = "init"
	// A loader's second kernel and its initramfs (Options.KexecFrom).
	guestKexecKernel = guest.KexecKernel
	guestKexecInitrd = guest.KexecInitrd
)

// An initramfs is what a guest's initial root file system holds: kdelta as
// /init, the job, the kernel's config and the modules to load. Nothing
// else: no shell, no libc, no disk image.
type initramfs struct {
	Binary  string // the static kdelta for /init
	Job     *Job
	Release string // names /boot/config-RELEASE
	Config  string // the kernel config file, "" for none
	Modules []module
	// KexecKernel and KexecInitrd, in a loader's initramfs, are the
	// kernel image its /init starts and that kernel's initramfs.
	KexecKernel, KexecInitrd string
}

// writeInitramfs writes the newc archive of r to w, uncompressed: under
// emulation the guest's gunzip of it (15 MB, most of it kdelta) took
// 0.4–0.5 s of a boot, copying the 27 MB as they are 0.15 s, and the
// host's compression goes too.
func writeInitramfs(w io.Writer, r *initramfs) error {
	bin, err := os.ReadFile(r.Binary)
	if err != nil {
		return fmt.Errorf("initramfs: %w", err)
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	c := newCPIOWriter(bw)
	// The kernel opens /dev/console for init's standard streams before
	// init runs, so the node must exist in the archive; devtmpfs is
	// mounted over /dev afterwards.
	c.CharDev("dev/console", 0o600, 5, 1)
	for _, d := range []string{"proc", "sys", "tmp", "root"} {
		c.Dir(d)
	}
	c.File(guestInit, 0o755, bin)
	c.File(guestJob, 0o644, marshalJob(r.Job))
	if r.Config != "" && r.Release != "" {
		cfg, err := os.ReadFile(r.Config)
		if err != nil {
			return fmt.Errorf("initramfs: kernel config: %w", err)
		}
		c.File("boot/config-"+r.Release, 0o644, cfg)
	}
	for _, f := range []struct{ src, dst string }{{r.KexecKernel, guestKexecKernel}, {r.KexecInitrd, guestKexecInitrd}} {
		if f.src == "" {
			continue
		}
		data, err := os.ReadFile(f.src)
		if err != nil {
			return fmt.Errorf("initramfs: %w", err)
		}
		c.File(f.dst, 0o644, data)
	}
	if len(r.Modules) > 0 {
		var names []string
		for _, m := range r.Modules {
			c.File(guestModuleDir+"/"+m.Name+".ko", 0o644, m.Data)
			names = append(names, m.Name)
		}
		c.File(guestModuleOrder, 0o644, []byte(strings.Join(names, "\n")+"\n"))
	}
	if err := c.Close(); err != nil {
		return fmt.Errorf("initramfs: %w", err)
	}
	return bw.Flush()
}
