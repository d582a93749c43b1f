//go:build !linux

package sys

import (
	"fmt"
	"os"
)

// TryLock reports that kdelta's locks (restore journals) are Linux's.
func TryLock(f *os.File) error {
	return fmt.Errorf("lock %s: %w", f.Name(), ErrNotLinux)
}
