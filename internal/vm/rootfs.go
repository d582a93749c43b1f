package vm

import (
	"fmt"

	"github.com/kdelta/kdelta/internal/guest"
)

// With --rootfs host the guest runs over the host's own root file
// system, read-only, shared by qemu over 9p (virtio-9p): kdelta is still
// /init from the initramfs and still sends the result set over the
// channel, but once it has read its job it mounts the host's root, gives
// it a private /tmp, /run, /dev/shm and /boot (tmpfs, so nothing is
// written to the host) and the kernel's own /proc, /sys and /dev, and
// changes its root there, so that command: workloads, stat -- CMD, perf
// and stress-ng run inside the kernel under test as on the host.

// RootFS values.
const (
	RootFSInitramfs = "initramfs"
	RootFSHost      = guest.RootFSHost
)

// hostRootTag is the 9p mount tag of the host's root.
const hostRootTag = guest.HostRootTag

// rootfsArgs are qemu's arguments that share the host's root, read-only.
func rootfsArgs(a *arch) []string {
	dev := "virtio-9p-pci"
	if a.Name == "s390x" {
		dev = "virtio-9p-ccw"
	}
	return []string{
		"-fsdev", "local,id=kdrootfs,path=/,security_model=none,readonly=on",
		"-device", dev + ",fsdev=kdrootfs,mount_tag=" + hostRootTag,
	}
}

// checkRootFS checks --rootfs.
func checkRootFS(v string) error {
	switch v {
	case "", RootFSInitramfs, RootFSHost:
		return nil
	}
	return fmt.Errorf("--rootfs: %q is not initramfs or host", v)
}
