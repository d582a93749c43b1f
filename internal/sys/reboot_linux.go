package sys

import "golang.org/x/sys/unix"

// PowerOff flushes the file systems and powers the machine off. It is what
// kdelta does as a guest's /init when the job is done: qemu then exits. On
// success it does not return.
func PowerOff() error {
	unix.Sync()
	return unix.Reboot(unix.LINUX_REBOOT_CMD_POWER_OFF)
}

// Mount mounts source of type fstype on target, as mount(2) with no flags.
// The guest's /init mounts proc, sysfs, devtmpfs, debugfs and tracefs with
// it.
func Mount(source, target, fstype, data string) error {
	return unix.Mount(source, target, fstype, 0, data)
}
