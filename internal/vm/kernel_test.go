package vm

import (
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kdelta/kdelta/internal/testenv"
)

// fakeBzImage returns the first bytes of an x86 boot image whose header
// points at version.
func fakeBzImage(version string) []byte {
	b := make([]byte, 0x2000)
	binary.LittleEndian.PutUint16(b[0x1FE:], 0xAA55)
	copy(b[0x202:], "HdrS")
	const at = 0x1000
	binary.LittleEndian.PutUint16(b[0x20E:], at-0x200)
	copy(b[at:], version+"\x00")
	return b
}

func TestInspectKernel(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	img := write("vmlinuz-6.1.0-9-amd64", fakeBzImage("6.1.0-9-amd64 (debian-kernel@lists.debian.org) #1 SMP PREEMPT_DYNAMIC Debian 6.1.27-1"))
	cfg := write("config-6.1.0-9-amd64", []byte("CONFIG_X86_64=y\n"))
	noVersion := fakeBzImage("")
	binary.LittleEndian.PutUint16(noVersion[0x20E:], 0)
	tests := []struct {
		name     string
		path     string
		release  string
		config   string
		wantErr  string
		errNames bool
	}{
		{name: "bzImage with config beside it", path: img, release: "6.1.0-9-amd64", config: cfg},
		{name: "no version string", path: write("bzImage", noVersion)},
		{name: "text file", path: write("notes.txt", []byte(strings.Repeat("hello\n", 200))), wantErr: "no header of one"},
		{name: "short file", path: write("short", []byte("MZ")), wantErr: "only 2 bytes"},
		{name: "ELF vmlinux", path: write("vmlinux", append([]byte("\x7fELF"), make([]byte, 0x300)...)), wantErr: "ELF"},
		{name: "missing", path: filepath.Join(dir, "nonexistent"), wantErr: "no such file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k, err := InspectKernel(tt.path)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !strings.Contains(err.Error(), tt.path) {
					t.Fatalf("error %v, want one naming %s and containing %q", err, tt.path, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if k.Release != tt.release || k.Config != tt.config {
				t.Errorf("release %q config %q, want %q %q", k.Release, k.Config, tt.release, tt.config)
			}
		})
	}
}

func TestInspectRealKernel(t *testing.T) {
	kernel := testKernel(t)
	k, err := InspectKernel(kernel)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(kernel, "vmlinuz-"+k.Release) {
		t.Errorf("release %q does not match the file name %s", k.Release, kernel)
	}
	if k.Config == "" {
		t.Errorf("no config found beside %s", kernel)
	}
}

func TestCheckStatic(t *testing.T) {
	if err := checkStatic(staticKdelta(t), arches["amd64"]); err != nil {
		t.Errorf("static kdelta: %v", err)
	}
	dyn, err := exec.LookPath("true")
	if err != nil {
		testenv.Skip(t, "no true(1)")
	}
	if err := checkStatic(dyn, arches["amd64"]); err == nil || !strings.Contains(err.Error(), "CGO_ENABLED=0") {
		t.Errorf("dynamic %s: %v", dyn, err)
	}
	if err := checkStatic("/etc/passwd", arches["amd64"]); err == nil {
		t.Error("/etc/passwd accepted as a guest binary")
	}
}
