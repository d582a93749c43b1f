//go:build !linux

package sys

import "fmt"

// BindMount reports that mounting is Linux's here.
func BindMount(source, target string) error {
	return fmt.Errorf("bind %s on %s: %w", source, target, ErrNotLinux)
}
