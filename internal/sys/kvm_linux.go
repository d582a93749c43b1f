package sys

import (
	"fmt"
	"os"
	"runtime"

	"golang.org/x/sys/unix"
)

// kvmAPIVersion is the only KVM API version there has been since Linux
// 2.6.22; KVM_GET_API_VERSION returning anything else means the rest of
// the API cannot be trusted.
const kvmAPIVersion = 12

// kvmIO is the request number of a KVM ioctl without an argument
// structure, _IO(KVMIO, nr). The direction bits of _IOC_NONE are 0 on most
// architectures and 1 (at bit 29) on powerpc and mips.
func kvmIO(nr uint) uint {
	const kvmio = 0xAE
	req := uint(kvmio)<<8 | nr
	switch runtime.GOARCH {
	case "ppc64", "ppc64le", "mips", "mipsle", "mips64", "mips64le":
		req |= 1 << 29
	}
	return req
}

// KVMCreateVM tells whether KVM can create a virtual machine on this host:
// it opens /dev/kvm, checks the API version and creates a VM with
// KVM_CREATE_VM, which it closes at once. A /dev/kvm that opens can still
// refuse here (a sandbox that passes the device on without the
// virtualization extensions), which costs a few milliseconds to learn
// instead of a boot. It does not create a vCPU: a KVM that creates VMs can
// still fail to start a kernel, which only a boot shows.
func KVMCreateVM() error {
	fd, err := unix.Open("/dev/kvm", unix.O_RDWR|unix.O_CLOEXEC, 0)
	if err != nil {
		return &os.PathError{Op: "open", Path: "/dev/kvm", Err: err}
	}
	defer unix.Close(fd)
	v, err := unix.IoctlRetInt(fd, kvmIO(0x00))
	if err != nil {
		return fmt.Errorf("/dev/kvm: KVM_GET_API_VERSION: %w", err)
	}
	if v != kvmAPIVersion {
		return fmt.Errorf("/dev/kvm: KVM API version %d, want %d", v, kvmAPIVersion)
	}
	// The argument is the machine type: 0, the default.
	vm, err := unix.IoctlRetInt(fd, kvmIO(0x01))
	if err != nil {
		return fmt.Errorf("/dev/kvm: KVM_CREATE_VM: %w", err)
	}
	unix.Close(vm)
	return nil
}
