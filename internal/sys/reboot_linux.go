package sys

import "golang.org/x/sys/unix"

// PowerOff flushes the file systems and powers the machine off. It is what
// kdelta does as a guest's /init when the job is done: qemu then exits. On
// success it does not return.
func PowerOff() error {
	unix.Sync()
	return unix.Reboot(unix.LINUX_REBOOT_CMD_POWER_OFF)
}
