package sys

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// KexecFileLoad loads the kernel image in the open file kernel, with the
// initramfs in initrd (nil for none) and the command line cmdline, as the
// kernel the next RebootKexec starts (kexec_file_load(2)). The kernel
// reads and checks the files itself: an image it cannot boot is refused
// here, before anything reboots. It needs CAP_SYS_BOOT and a running
// kernel built with CONFIG_KEXEC_FILE; one in lockdown loads only signed
// images.
func KexecFileLoad(kernel, initrd *os.File, cmdline string) error {
	initrdFd, flags := -1, 0
	if initrd != nil {
		initrdFd = int(initrd.Fd())
	} else {
		flags |= unix.KEXEC_FILE_NO_INITRAMFS
	}
	err := unix.KexecFileLoad(int(kernel.Fd()), initrdFd, cmdline, flags)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, unix.ENOSYS):
		return fmt.Errorf("kexec_file_load: the running kernel has no CONFIG_KEXEC_FILE: %w", err)
	case errors.Is(err, unix.EPERM):
		return fmt.Errorf("kexec_file_load: not permitted (needs CAP_SYS_BOOT; kernel.kexec_load_disabled or lockdown may forbid it): %w", err)
	case errors.Is(err, unix.ENOEXEC):
		return fmt.Errorf("kexec_file_load: %s is not a kernel image this kernel can start: %w", kernel.Name(), err)
	case errors.Is(err, unix.EKEYREJECTED):
		return fmt.Errorf("kexec_file_load: %s: its signature was rejected: %w", kernel.Name(), err)
	}
	return fmt.Errorf("kexec_file_load %s: %w", kernel.Name(), err)
}

// RebootKexec flushes the file systems and starts the kernel that
// KexecFileLoad loaded, at once: no shutdown of services, no firmware.
// On success it does not return.
func RebootKexec() error {
	unix.Sync()
	if err := unix.Reboot(unix.LINUX_REBOOT_CMD_KEXEC); err != nil {
		return fmt.Errorf("reboot into the loaded kernel: %w", err)
	}
	return nil
}
