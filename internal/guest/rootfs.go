package guest

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/kdelta/kdelta/internal/sys"
)

// enterHostRoot, in the guest, mounts the host's root shared over 9p on
// /host and lays its top-level directories over the initramfs' own root,
// read-only, each bound where it is on the host (its links made the
// same), leaving the initramfs' /init, job, /boot (the kernel's config)
// and the kernel's /proc, /sys and /dev where they are; /tmp, /run,
// /var/tmp and /dev/shm are private tmpfs. kdelta stays the process it is,
// and its children re-execute the same /init.
func enterHostRoot(con *os.File) error {
	const host = "/host"
	if err := os.MkdirAll(host, 0o755); err != nil {
		return err
	}
	if err := sys.Mount(HostRootTag, host, "9p", "trans=virtio,version=9p2000.L,msize=512000,cache=loose"); err != nil {
		return fmt.Errorf("--rootfs host: mount the host's root (9p, tag %s): %w (the kernel needs CONFIG_NET_9P_VIRTIO and CONFIG_9P_FS built in)", HostRootTag, err)
	}
	ents, err := os.ReadDir(host)
	if err != nil {
		return fmt.Errorf("--rootfs host: %w", err)
	}
	own := map[string]bool{"proc": true, "sys": true, "dev": true, "tmp": true, "run": true, "boot": true,
		"init": true, "kdelta": true, "host": true, "lost+found": true}
	for _, e := range ents {
		name := e.Name()
		if own[name] {
			continue
		}
		src, dst := filepath.Join(host, name), "/"+name
		switch {
		case e.Type()&os.ModeSymlink != 0:
			if t, err := os.Readlink(src); err == nil {
				os.Remove(dst)
				if err := os.Symlink(t, dst); err != nil {
					fmt.Fprintf(con, "kdelta guest: --rootfs host: %v\n", err)
				}
			}
		case e.IsDir():
			if err := os.MkdirAll(dst, 0o755); err != nil {
				fmt.Fprintf(con, "kdelta guest: --rootfs host: %v\n", err)
				continue
			}
			if err := sys.BindMount(src, dst); err != nil {
				fmt.Fprintf(con, "kdelta guest: --rootfs host: %v\n", err)
			}
		}
	}
	for _, d := range []string{"/run", "/var/tmp", "/dev/shm"} {
		if err := os.MkdirAll(d, 0o755); err == nil {
			if err := sys.Mount("tmpfs", d, "tmpfs", ""); err != nil {
				fmt.Fprintf(con, "kdelta guest: mount tmpfs on %s: %v\n", d, err)
			}
		}
	}
	// The kernel starts /init with no PATH; the host's programs are
	// found where a shell would look.
	if os.Getenv("PATH") == "" {
		os.Setenv("PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin")
	}
	fmt.Fprintln(con, "kdelta guest: running over the host's root file system (read-only, 9p)")
	return nil
}
