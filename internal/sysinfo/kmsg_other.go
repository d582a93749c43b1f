//go:build !linux

package sysinfo

import (
	"errors"
	"os"
)

// readKmsg reports that only Linux has /dev/kmsg.
func readKmsg(path string) (string, error) {
	return "", &os.PathError{Op: "open", Path: path, Err: errors.ErrUnsupported}
}
