// Package outfile is the one writer of every file kdelta is told to write
// (-o FILE of run, ab, stat, bisect-run, import, compare, show, history,
// explain, results export, profile diff and profile pprof, and the sets
// of kdelta vm -o DIR). A root tool writes only what it means to:
//
//   - a regular file, or nothing, is replaced atomically: a temporary file
//     in the same directory, synced, then renamed over it, so a reader (or
//     a kdelta killed mid-write) finds the old file whole or the new one;
//   - a character device, pipe or socket is written through, never
//     replaced (-o /dev/stdout works, -o /dev/full says ENOSPC);
//   - a symbolic link is refused, but the process's own descriptors
//     (/dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N), which are
//     written through as a shell's redirection would be: kdelta, often
//     root, neither replaces a link nor follows one that someone may have
//     planted (in /tmp, say) to a file it would then destroy;
//   - a directory, a block device or another special file is refused;
//   - an output that is one of the command's inputs (the same file, also
//     through links) is refused before any work (Check).
package outfile

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// kind is what writing to a path does.
type kind int

const (
	replace  kind = iota // a regular file, or nothing: atomic rename
	stream               // a device, pipe or socket: written through
	appendFD             // the process's own descriptor on a regular file
)

// ownFD tells whether p names one of this process's descriptors.
func ownFD(p string) bool {
	p = filepath.Clean(p)
	switch {
	case p == "/dev/stdout" || p == "/dev/stderr":
		return true
	case strings.HasPrefix(p, "/dev/fd/"), strings.HasPrefix(p, "/proc/self/fd/"),
		strings.HasPrefix(p, "/proc/"+strconv.Itoa(os.Getpid())+"/fd/"):
		return true
	}
	return false
}

// classify says how path would be written, or why it may not be.
func classify(path string) (kind, error) {
	if path == "" {
		return 0, errors.New("no file named")
	}
	li, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		d, derr := os.Stat(filepath.Dir(path))
		if errors.Is(derr, fs.ErrNotExist) {
			return 0, unwrap(derr)
		}
		if derr == nil && !d.IsDir() {
			return 0, fmt.Errorf("cannot be created: %s is not a directory", filepath.Dir(path))
		}
		return replace, nil
	}
	if errors.Is(err, fs.ErrPermission) {
		// A directory this user may not look into: the write says so.
		return replace, nil
	}
	if err != nil {
		return 0, unwrap(err)
	}
	fi := li
	if li.Mode()&fs.ModeSymlink != 0 {
		target, _ := os.Readlink(path)
		if !ownFD(path) {
			return 0, fmt.Errorf("is a symbolic link (to %s): kdelta neither replaces a link nor writes through one; name the file itself", target)
		}
		if fi, err = os.Stat(path); err != nil {
			return 0, unwrap(err)
		}
		if fi.Mode().IsRegular() {
			return appendFD, nil
		}
	}
	m := fi.Mode()
	switch {
	case m.IsRegular():
		return replace, nil
	case m.IsDir():
		return 0, errors.New("is a directory; -o names the file to write")
	case m&fs.ModeDevice != 0 && m&fs.ModeCharDevice == 0:
		return 0, errors.New("is a block device; kdelta writes only regular files, pipes and character devices")
	case m&(fs.ModeCharDevice|fs.ModeNamedPipe|fs.ModeSocket) != 0:
		return stream, nil
	}
	return 0, fmt.Errorf("is a special file (%s); kdelta writes only regular files, pipes and character devices", m.Type())
}

// Check refuses, before any work, an output path that Write would refuse
// and one that is the same file as one of inputs (through links and
// hard links too). Inputs that are not files are ignored. The error
// names neither flag nor path: the caller prefixes them.
func Check(path string, inputs ...string) error {
	if _, err := classify(path); err != nil {
		return err
	}
	out, err := os.Stat(path)
	if err != nil {
		return nil // nothing there yet: no input can be it
	}
	for _, in := range inputs {
		if fi, err := os.Stat(in); err == nil && os.SameFile(out, fi) && fi.Mode().IsRegular() {
			return fmt.Errorf("is also an input (%s): kdelta does not write over what it reads", in)
		}
	}
	return nil
}

// Stream tells whether path is written through (a device, pipe, socket,
// or the process's own descriptor) rather than replaced: a writer that
// saves after every step writes such a path once, at the end.
func Stream(path string) bool {
	k, err := classify(path)
	return err == nil && k != replace
}

// WriteBytes writes b to path (see Write).
func WriteBytes(path string, b []byte) error {
	return Write(path, func(w io.Writer) error {
		_, err := w.Write(b)
		return unwrap(err)
	})
}

// Write writes what write produces to path: atomically over a regular
// file or nothing (a new file gets mode 0644, a replaced one keeps its
// mode and, for root, its owner), through to a character device, pipe or
// socket; anything else is refused. An error of write is returned as it
// is; the others name neither the path nor a temporary file.
func Write(path string, write func(io.Writer) error) error {
	k, err := classify(path)
	if err != nil {
		return err
	}
	if k != replace {
		flags := os.O_WRONLY
		if k == appendFD {
			flags |= os.O_APPEND
		}
		f, err := os.OpenFile(path, flags, 0)
		if err != nil {
			return unwrap(err)
		}
		bw := bufio.NewWriter(f)
		werr := write(bw)
		if werr == nil {
			werr = unwrap(bw.Flush())
		}
		if cerr := f.Close(); werr == nil {
			werr = unwrap(cerr)
		}
		return werr
	}
	return replaceFile(path, write)
}

// replaceFile writes a temporary file beside path and renames it over.
func replaceFile(path string, write func(io.Writer) error) error {
	mode, uid, gid := fs.FileMode(0o644), -1, -1
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
		if st, ok := fi.Sys().(*syscall.Stat_t); ok && os.Geteuid() == 0 {
			uid, gid = int(st.Uid), int(st.Gid)
		}
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return unwrap(err)
	}
	tmp := f.Name()
	done := false
	defer func() {
		if !done {
			os.Remove(tmp)
		}
	}()
	bw := bufio.NewWriter(f)
	if err := write(bw); err != nil {
		f.Close()
		return err
	}
	werr := bw.Flush()
	if werr == nil {
		werr = f.Chmod(mode)
	}
	if werr == nil && uid >= 0 {
		werr = f.Chown(uid, gid)
	}
	if werr == nil {
		werr = f.Sync()
	}
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		return unwrap(werr)
	}
	// What is there now may have changed since it was looked at: replace
	// only a regular file, or nothing.
	if k, err := classify(path); err != nil || k != replace {
		if err == nil {
			err = errors.New("is no longer a regular file")
		}
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		return unwrap(err)
	}
	done = true
	if d, err := os.Open(filepath.Dir(path)); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// unwrap drops a *PathError's path (a temporary file's name says
// nothing; the caller names the output).
func unwrap(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}
