package sysinfo

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
)

// An FS is a machine's file tree: "/" on a live machine, a fixture directory
// in tests. Every reader of this package goes through it, so a fingerprint
// of a captured tree is computed by exactly the code that runs live.
type FS struct {
	// Root is the directory that stands for "/".
	Root string
}

// maxFileSize bounds what one read takes in: the largest file read here is
// a kernel config (about 300 KB uncompressed), and /proc files that never
// end must not exhaust memory.
const maxFileSize = 16 << 20

// path returns the host path of rel, a path relative to the machine's root
// written without a leading slash ("proc/cpuinfo").
func (f FS) path(rel string) string {
	root := f.Root
	if root == "" {
		root = "/"
	}
	return filepath.Join(root, filepath.FromSlash(rel))
}

// read returns the whole content of rel.
func (f FS) read(rel string) ([]byte, error) {
	fh, err := os.Open(f.path(rel))
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	data, err := io.ReadAll(io.LimitReader(fh, maxFileSize))
	if err != nil {
		return nil, err
	}
	return data, nil
}

// readString returns the content of rel with surrounding white space
// removed, as sysfs and procfs one-value files want.
func (f FS) readString(rel string) (string, error) {
	data, err := f.read(rel)
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(data)), nil
}

// exists tells whether rel is present, whatever its permissions.
func (f FS) exists(rel string) bool {
	_, err := os.Lstat(f.path(rel))
	return err == nil
}

// list returns the names in directory rel, sorted.
func (f FS) list(rel string) ([]string, error) {
	entries, err := os.ReadDir(f.path(rel))
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	return names, nil
}

// fact reads the one-value file rel into a Fact whose Source is the file.
func (f FS) fact(rel string) Fact {
	s, err := f.readString(rel)
	if err != nil {
		return unknown(rel, err)
	}
	if s == "" {
		return Fact{Unknown: "/" + rel + " is empty"}
	}
	return Fact{Value: s, Source: "/" + rel}
}

// unknown makes the Fact of a file that could not be read.
func unknown(rel string, err error) Fact {
	return Fact{Unknown: reason(rel, err)}
}

// reason says in one line why rel could not be read, naming the errno, so
// that "no such file" (the kernel lacks the feature) and "EPERM" (it has it
// but refuses) are told apart in stored fingerprints.
func reason(rel string, err error) string {
	p := "/" + rel
	name := errnoName(err)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Sprintf("not available: %s: no such file (ENOENT)", p)
	case errors.Is(err, syscall.EPERM):
		return fmt.Sprintf("permission denied (EPERM) reading %s", p)
	case errors.Is(err, syscall.EACCES):
		return fmt.Sprintf("permission denied (EACCES) reading %s", p)
	case errors.Is(err, syscall.EISDIR):
		return fmt.Sprintf("unreadable: %s is a directory (EISDIR)", p)
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	if name != "" {
		return fmt.Sprintf("unreadable: %s: %v (%s)", p, err, name)
	}
	return fmt.Sprintf("unreadable: %s: %v", p, err)
}

// errnoName returns the symbolic name of the errno inside err, or "".
func errnoName(err error) string {
	var en syscall.Errno
	if !errors.As(err, &en) {
		return ""
	}
	if n, ok := errnoNames[en]; ok {
		return n
	}
	return fmt.Sprintf("errno %d", int(en))
}

// errnoNames covers the errors that reading procfs, sysfs, debugfs and
// securityfs files returns in practice.
var errnoNames = map[syscall.Errno]string{
	syscall.ENOENT:  "ENOENT",
	syscall.EPERM:   "EPERM",
	syscall.EACCES:  "EACCES",
	syscall.EISDIR:  "EISDIR",
	syscall.ENOTDIR: "ENOTDIR",
	syscall.EINVAL:  "EINVAL",
	syscall.EIO:     "EIO",
	syscall.ENODEV:  "ENODEV",
	syscall.ENXIO:   "ENXIO",
	syscall.EAGAIN:  "EAGAIN",
	syscall.EBUSY:   "EBUSY",
	syscall.ELOOP:   "ELOOP",
}

// isPermission tells whether err is EPERM or EACCES.
func isPermission(err error) bool {
	return errors.Is(err, fs.ErrPermission)
}
