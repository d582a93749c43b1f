//go:build !linux

package sys

import "fmt"

// KVMCreateVM reports that there is no KVM: it is Linux's.
func KVMCreateVM() error {
	return fmt.Errorf("/dev/kvm: KVM %w", ErrNotLinux)
}
