package guest

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/kdelta/kdelta/internal/sys"
)

// A BootReport is what a guest says of the kernel it runs: uname's
// release, /proc/cmdline and the boot id, and, from a loader, the release
// it loaded and is rebooting into.
type BootReport struct {
	Release   string `json:"release"`
	Cmdline   string `json:"cmdline"`
	BootID    string `json:"boot_id"`
	KexecInto string `json:"kexec_into,omitempty"`
}

// ReadBootReport reads the running kernel's release, command line and
// boot id under root ("/" for this machine's).
func ReadBootReport(root string) BootReport {
	read := func(p string) string {
		b, err := os.ReadFile(filepath.Join(root, p))
		if err != nil {
			return ""
		}
		return strings.TrimSpace(string(b))
	}
	return BootReport{
		Release: read("proc/sys/kernel/osrelease"),
		Cmdline: read("proc/cmdline"),
		BootID:  read("proc/sys/kernel/random/boot_id"),
	}
}

// kexecInto is a loader guest's work: it loads the kernel its initramfs
// carries, says so on the channel with send, and reboots into it. On
// success it does not return.
func kexecInto(con *os.File, step *KexecStep, send func(kind string, payload []byte)) error {
	if err := LoadKernel("/"+KexecKernel, "/"+KexecInitrd, step.Cmdline); err != nil {
		return fmt.Errorf("kexec into %s: %w", step.Release, err)
	}
	r := ReadBootReport("/")
	r.KexecInto = step.Release
	b, _ := json.Marshal(&r)
	send(FrameBoot, b)
	fmt.Fprintf(con, "kdelta guest: %s (boot %s) loaded %s; rebooting into it with %q\n", r.Release, r.BootID, step.Release, step.Cmdline)
	return sys.RebootKexec()
}

// LoadKernel loads the kernel image at kernel, with the initramfs at
// initrd ("" for none) and the command line, as the kernel the next
// sys.RebootKexec starts. It is the one load of a guest that kexecs and
// of a lab agent's boot step, so TestVMKexec's boot covers both.
func LoadKernel(kernel, initrd, cmdline string) error {
	k, err := os.Open(kernel)
	if err != nil {
		return err
	}
	defer k.Close()
	var i *os.File
	if initrd != "" {
		if i, err = os.Open(initrd); err != nil {
			return err
		}
		defer i.Close()
	}
	return sys.KexecFileLoad(k, i, cmdline)
}

// sendBoot says the guest's boot on the channel, for the host's check
// of a kexec.
func sendBoot(con *os.File, send func(kind string, payload []byte)) {
	r := ReadBootReport("/")
	b, _ := json.Marshal(&r)
	fmt.Fprintf(con, "kdelta guest: booted %s (boot %s), command line %q\n", r.Release, r.BootID, r.Cmdline)
	send(FrameBoot, b)
}
