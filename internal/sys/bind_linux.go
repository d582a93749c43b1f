package sys

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// BindMount makes the tree at source visible at target too (mount(2)
// with MS_BIND|MS_REC), as the guest's /init lays the host's root shared
// over 9p into its own (kdelta vm --rootfs host).
func BindMount(source, target string) error {
	if err := unix.Mount(source, target, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
		return fmt.Errorf("bind %s on %s: %w", source, target, err)
	}
	return nil
}
