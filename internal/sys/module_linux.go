package sys

import (
	"errors"

	"golang.org/x/sys/unix"
)

// LoadModule loads the kernel module in the open file fd with
// finit_module(2). A module already loaded is not an error.
func LoadModule(fd int, params string) error {
	err := unix.FinitModule(fd, params, 0)
	if errors.Is(err, unix.EEXIST) {
		return nil
	}
	return err
}
