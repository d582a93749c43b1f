package sys

import (
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// AnonymousTemp returns a read-write file in the temporary directory that
// has no name (O_TMPFILE), so nothing is left behind whatever happens to
// the process. Where the filesystem cannot do that, the file is created
// with a name made from pattern (as os.CreateTemp) and unlinked at once.
func AnonymousTemp(pattern string) (*os.File, error) {
	dir := os.TempDir()
	fd, err := unix.Open(dir, unix.O_RDWR|unix.O_TMPFILE|unix.O_CLOEXEC, 0o600)
	if err == nil {
		return os.NewFile(uintptr(fd), filepath.Join(dir, "(anonymous)")), nil
	}
	f, err := os.CreateTemp(dir, pattern)
	if err != nil {
		return nil, err
	}
	os.Remove(f.Name())
	return f, nil
}
