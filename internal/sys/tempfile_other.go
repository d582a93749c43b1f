//go:build !linux

package sys

import "os"

// AnonymousTemp reports that the nameless files kdelta's children log to
// are Linux's.
func AnonymousTemp(pattern string) (*os.File, error) { return nil, ErrNotLinux }
