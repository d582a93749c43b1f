package sys

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// TryLock takes an exclusive flock(2) lock on f without waiting. The lock
// belongs to f's open file description, so it lasts until f is closed, is
// released by the kernel when its holder dies however it dies (SIGKILL
// included), and is not inherited across exec (the file is close-on-exec).
// It returns ErrLocked when another holder has it.
func TryLock(f *os.File) error {
	for {
		err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		switch {
		case err == nil:
			return nil
		case errors.Is(err, unix.EINTR):
			continue
		case errors.Is(err, unix.EWOULDBLOCK):
			return ErrLocked
		}
		return err
	}
}
