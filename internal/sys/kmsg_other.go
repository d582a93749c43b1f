//go:build !linux

package sys

// A KmsgTail reads the kernel's log messages; the log is Linux's.
type KmsgTail struct{}

// OpenKmsgTail reports that the kernel log is Linux's.
func OpenKmsgTail() (*KmsgTail, error) { return nil, ErrNotLinux }

// Messages reports that the kernel log is Linux's.
func (k *KmsgTail) Messages() ([]string, error) { return nil, ErrNotLinux }

// Close does nothing.
func (k *KmsgTail) Close() error { return nil }
