//go:build !linux

package sys

import (
	"errors"
	"fmt"
)

// KVMCreateVM reports that there is no KVM: it is Linux's.
func KVMCreateVM() error {
	return fmt.Errorf("/dev/kvm: %w: KVM is Linux's", errors.ErrUnsupported)
}
