package vm

import (
	"fmt"
	"io"
	"path"
	"strings"
)

// A cpioWriter writes an archive in the "new ASCII" (newc) format, the one
// the kernel unpacks into its initial root file system
// (Documentation/driver-api/early-userspace/buffer-format.rst). Every entry
// is a 110-byte header of hexadecimal fields, the NUL-terminated name and
// the data, the name and the data each padded to a multiple of four bytes.
type cpioWriter struct {
	w   io.Writer
	off int64 // bytes written, for padding
	ino uint32
	err error
	// dirs holds the directories written so far, so that a file's parent
	// directories are made before it.
	dirs map[string]bool
}

// File modes of newc headers (the st_mode bits).
const (
	cpioDir  = 0o040000
	cpioFile = 0o100000
	cpioChar = 0o020000
)

func newCPIOWriter(w io.Writer) *cpioWriter {
	return &cpioWriter{w: w, dirs: map[string]bool{"": true, ".": true}}
}

// cpioHeader is one entry's header fields.
type cpioHeader struct {
	Name  string
	Mode  uint32 // type and permission bits
	Size  int64
	Major uint32 // of a device node
	Minor uint32
	Mtime int64
}

func (c *cpioWriter) write(b []byte) {
	if c.err != nil {
		return
	}
	n, err := c.w.Write(b)
	c.off += int64(n)
	c.err = err
}

func (c *cpioWriter) pad() {
	if r := c.off % 4; r != 0 {
		c.write(make([]byte, 4-r))
	}
}

// header writes h; the caller then writes h.Size bytes of data and calls
// pad.
func (c *cpioWriter) header(h cpioHeader) {
	if c.err != nil {
		return
	}
	name := strings.TrimPrefix(path.Clean("/"+h.Name), "/")
	if h.Name == cpioTrailer {
		name = h.Name
	}
	if name == "" {
		c.err = fmt.Errorf("cpio: empty name %q", h.Name)
		return
	}
	c.ino++
	nlink := uint32(1)
	if h.Mode&0o170000 == cpioDir {
		nlink = 2
	}
	hdr := fmt.Sprintf("070701%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x",
		c.ino, h.Mode, 0, 0, nlink, uint32(h.Mtime), uint32(h.Size),
		0, 0, h.Major, h.Minor, len(name)+1, 0)
	c.write([]byte(hdr))
	c.write([]byte(name))
	c.write([]byte{0})
	c.pad()
}

// mkdirAll writes the directories of dir not yet written, parents first.
func (c *cpioWriter) mkdirAll(dir string) {
	dir = strings.TrimPrefix(path.Clean("/"+dir), "/")
	if c.dirs[dir] {
		return
	}
	c.mkdirAll(path.Dir(dir))
	c.dirs[dir] = true
	c.header(cpioHeader{Name: dir, Mode: cpioDir | 0o755})
}

// Dir adds a directory (and its missing parents).
func (c *cpioWriter) Dir(name string) { c.mkdirAll(name) }

// File adds a regular file with mode perm holding data.
func (c *cpioWriter) File(name string, perm uint32, data []byte) {
	c.mkdirAll(path.Dir("/" + name))
	if int64(len(data)) > 0xffffffff {
		c.err = fmt.Errorf("cpio: %s: %d bytes is more than newc can hold", name, len(data))
		return
	}
	c.header(cpioHeader{Name: name, Mode: cpioFile | perm&0o7777, Size: int64(len(data))})
	c.write(data)
	c.pad()
}

// CharDev adds a character device node.
func (c *cpioWriter) CharDev(name string, perm, major, minor uint32) {
	c.mkdirAll(path.Dir("/" + name))
	c.header(cpioHeader{Name: name, Mode: cpioChar | perm&0o7777, Major: major, Minor: minor})
}

// cpioTrailer names the entry that ends an archive.
const cpioTrailer = "TRAILER!!!"

// Close writes the trailer and returns the first error met.
func (c *cpioWriter) Close() error {
	c.header(cpioHeader{Name: cpioTrailer})
	return c.err
}

// A cpioEntry is one entry read back from a newc archive.
type cpioEntry struct {
	cpioHeader
	Data []byte
}

// readCPIO parses a newc archive up to its trailer. It exists to check
// what the writer made (tests) and to tell what an initramfs holds.
func readCPIO(b []byte) ([]cpioEntry, error) {
	var out []cpioEntry
	off := 0
	for {
		if len(b)-off < 110 {
			return out, fmt.Errorf("cpio: truncated header at offset %d", off)
		}
		h := b[off : off+110]
		if string(h[:6]) != "070701" {
			return out, fmt.Errorf("cpio: bad magic %q at offset %d", h[:6], off)
		}
		var f [13]uint32
		for i := range f {
			var v uint32
			for _, ch := range h[6+8*i : 14+8*i] {
				d, ok := hexDigit(ch)
				if !ok {
					return out, fmt.Errorf("cpio: bad hex field %d at offset %d", i, off)
				}
				v = v<<4 | d
			}
			f[i] = v
		}
		namesize := int(f[11])
		if namesize < 1 || off+110+namesize > len(b) {
			return out, fmt.Errorf("cpio: bad name size %d at offset %d", namesize, off)
		}
		name := string(b[off+110 : off+110+namesize-1])
		off = align4(off + 110 + namesize)
		size := int(f[6])
		if off+size > len(b) || off > len(b) {
			return out, fmt.Errorf("cpio: %s: data runs past the end", name)
		}
		if name == cpioTrailer {
			return out, nil
		}
		e := cpioEntry{cpioHeader: cpioHeader{Name: name, Mode: f[1], Size: int64(size), Mtime: int64(f[5]), Major: f[9], Minor: f[10]}}
		e.Data = b[off : off+size]
		out = append(out, e)
		off = align4(off + size)
	}
}

func align4(n int) int { return (n + 3) &^ 3 }

func hexDigit(c byte) (uint32, bool) {
	switch {
	case c >= '0' && c <= '9':
		return uint32(c - '0'), true
	case c >= 'a' && c <= 'f':
		return uint32(c-'a') + 10, true
	case c >= 'A' && c <= 'F':
		return uint32(c-'A') + 10, true
	}
	return 0, false
}
