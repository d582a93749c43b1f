package vm

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kdelta/kdelta/internal/testenv"
)

func TestCPIORoundTrip(t *testing.T) {
	tests := []struct {
		name  string
		build func(c *cpioWriter)
		want  []cpioHeader // in order
	}{
		{
			name:  "empty archive",
			build: func(c *cpioWriter) {},
		},
		{
			name: "file makes its parents first",
			build: func(c *cpioWriter) {
				c.File("kdelta/modules/bridge.ko", 0o644, []byte("elf"))
			},
			want: []cpioHeader{
				{Name: "kdelta", Mode: cpioDir | 0o755},
				{Name: "kdelta/modules", Mode: cpioDir | 0o755},
				{Name: "kdelta/modules/bridge.ko", Mode: cpioFile | 0o644, Size: 3},
			},
		},
		{
			name: "padding for every name and size",
			build: func(c *cpioWriter) {
				c.File("a", 0o755, []byte("1"))
				c.File("ab", 0o600, []byte("12"))
				c.File("abc", 0o644, []byte("123"))
				c.File("abcd", 0o644, []byte("1234"))
				c.File("abcde", 0o644, nil)
			},
			want: []cpioHeader{
				{Name: "a", Mode: cpioFile | 0o755, Size: 1},
				{Name: "ab", Mode: cpioFile | 0o600, Size: 2},
				{Name: "abc", Mode: cpioFile | 0o644, Size: 3},
				{Name: "abcd", Mode: cpioFile | 0o644, Size: 4},
				{Name: "abcde", Mode: cpioFile | 0o644},
			},
		},
		{
			name: "device node and leading slash",
			build: func(c *cpioWriter) {
				c.CharDev("/dev/console", 0o600, 5, 1)
				c.Dir("/proc")
				c.Dir("proc") // written once
			},
			want: []cpioHeader{
				{Name: "dev", Mode: cpioDir | 0o755},
				{Name: "dev/console", Mode: cpioChar | 0o600, Major: 5, Minor: 1},
				{Name: "proc", Mode: cpioDir | 0o755},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			c := newCPIOWriter(&b)
			tt.build(c)
			if err := c.Close(); err != nil {
				t.Fatal(err)
			}
			if b.Len()%4 != 0 {
				t.Errorf("archive is %d bytes, not a multiple of 4", b.Len())
			}
			got, err := readCPIO(b.Bytes())
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got %d entries, want %d: %+v", len(got), len(tt.want), got)
			}
			for i, w := range tt.want {
				g := got[i].cpioHeader
				if g != w {
					t.Errorf("entry %d = %+v, want %+v", i, g, w)
				}
			}
		})
	}
}

// TestCPIOWithCpioTool checks the archive with GNU cpio, an independent
// reader of the format.
func TestCPIOWithCpioTool(t *testing.T) {
	tool, err := exec.LookPath("cpio")
	if err != nil {
		testenv.Skip(t, "cpio not installed (apt-get install cpio): only the built-in reader checks the format")
	}
	var b bytes.Buffer
	c := newCPIOWriter(&b)
	c.CharDev("dev/console", 0o600, 5, 1)
	c.File("init", 0o755, bytes.Repeat([]byte("x"), 4097))
	c.File("kdelta/job.json", 0o644, []byte(`{"specs":["syscall"]}`))
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(tool, "-t", "-v", "--quiet")
	cmd.Stdin = &b
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("cpio -t: %v\n%s", err, out)
	}
	for _, want := range []string{"dev/console", "init", "kdelta/job.json", "4097", "crw-------", "-rwxr-xr-x"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("cpio -t -v output lacks %q:\n%s", want, out)
		}
	}
}

func TestWriteInitramfs(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "kdelta")
	cfg := filepath.Join(dir, "config-6.1.0-test")
	os.WriteFile(bin, []byte("\x7fELF binary"), 0o755)
	os.WriteFile(cfg, []byte("CONFIG_BRIDGE=m\n"), 0o644)
	job, err := ParseJob([]string{"run", "syscall:calls=1000", "-r", "2"})
	if err != nil {
		t.Fatal(err)
	}
	var z bytes.Buffer
	err = writeInitramfs(&z, &initramfs{Binary: bin, Job: job, Release: "6.1.0-test", Config: cfg,
		Modules: []module{{Name: "llc", Data: []byte("a")}, {Name: "bridge", Data: []byte("b")}}})
	if err != nil {
		t.Fatal(err)
	}
	entries, err := readCPIO(z.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]cpioEntry{}
	for _, e := range entries {
		files[e.Name] = e
	}
	if e := files["init"]; string(e.Data) != "\x7fELF binary" || e.Mode != cpioFile|0o755 {
		t.Errorf("init = %+v", e)
	}
	if e := files["dev/console"]; e.Mode != cpioChar|0o600 || e.Major != 5 || e.Minor != 1 {
		t.Errorf("dev/console = %+v", e.cpioHeader)
	}
	if e := files["boot/config-6.1.0-test"]; string(e.Data) != "CONFIG_BRIDGE=m\n" {
		t.Errorf("config = %q", e.Data)
	}
	if e := files[guestModuleOrder]; string(e.Data) != "llc\nbridge\n" {
		t.Errorf("module order = %q", e.Data)
	}
	j, err := unmarshalJob(files[guestJob].Data)
	if err != nil {
		t.Fatal(err)
	}
	if j.Repeat != 2 || len(j.Specs) != 1 || j.Specs[0] != "syscall:calls=1000" {
		t.Errorf("job = %+v", j)
	}
}

func FuzzCPIORoundTrip(f *testing.F) {
	f.Add("init", []byte("data"))
	f.Add("a/b/c", []byte{})
	f.Add("x", bytes.Repeat([]byte{0}, 7))
	f.Fuzz(func(t *testing.T, name string, data []byte) {
		if name == "" || strings.ContainsRune(name, 0) || name == cpioTrailer {
			return
		}
		var b bytes.Buffer
		c := newCPIOWriter(&b)
		c.File(name, 0o644, data)
		if err := c.Close(); err != nil {
			return // a name that cleans to nothing
		}
		got, err := readCPIO(b.Bytes())
		if err != nil {
			t.Fatalf("read back: %v", err)
		}
		last := got[len(got)-1]
		if !bytes.Equal(last.Data, data) || last.Mode != cpioFile|0o644 {
			t.Fatalf("read back %+v, want %d bytes", last.cpioHeader, len(data))
		}
	})
}
