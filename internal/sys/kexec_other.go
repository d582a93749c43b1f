//go:build !linux

package sys

import "os"

// KexecFileLoad reports that kexec is Linux's.
func KexecFileLoad(kernel, initrd *os.File, cmdline string) error { return ErrNotLinux }

// RebootKexec reports that kexec is Linux's.
func RebootKexec() error { return ErrNotLinux }
