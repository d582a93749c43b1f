package sys

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestKexecFileLoadRefuses loads a file that is no kernel image: whatever
// the host (a kernel without CONFIG_KEXEC_FILE, a user without
// CAP_SYS_BOOT, or one that probes the image), the call is refused and
// its error says why in words; nothing is loaded, so nothing changes what
// the host's next reboot starts. The real load and reboot are
// TestVMKexec's, inside a guest.
func TestKexecFileLoadRefuses(t *testing.T) {
	path := filepath.Join(t.TempDir(), "not-a-kernel")
	if err := os.WriteFile(path, []byte(strings.Repeat("not a kernel image\n", 256)), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	err = KexecFileLoad(f, nil, "console=ttyS0")
	t.Logf("KexecFileLoad: %v", err)
	want := map[unix.Errno]string{
		unix.ENOSYS:  "CONFIG_KEXEC_FILE",
		unix.EPERM:   "CAP_SYS_BOOT",
		unix.ENOEXEC: "not a kernel image",
	}
	var errno unix.Errno
	if !errors.As(err, &errno) {
		t.Fatalf("KexecFileLoad of %s: %v; want an errno", path, err)
	}
	words, ok := want[errno]
	if !ok {
		t.Fatalf("KexecFileLoad of %s: %v; want ENOSYS, EPERM or ENOEXEC", path, err)
	}
	if !strings.Contains(err.Error(), words) {
		t.Errorf("error %q does not say %q", err, words)
	}
}
