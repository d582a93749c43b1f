package vm

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kdelta/kdelta/internal/result"
)

// TestGuestEndsAfterResult runs boot.run against a stand-in for qemu, a
// shell script that writes a result frame where qemu's channel file goes,
// prints what a guest's console prints once it sent its result, and then
// never exits, as qemu does with a kernel whose power-off halts: the host
// takes the result, ends the process after the grace and says why,
// instead of waiting for --timeout.
func TestGuestEndsAfterResult(t *testing.T) {
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	if err := json.NewEncoder(zw).Encode(bootSet(true, &result.Run{Status: result.StatusOK})); err != nil {
		t.Fatal(err)
	}
	zw.Close()
	dir := t.TempDir()
	frame := filepath.Join(dir, "frame")
	f, err := os.Create(frame)
	if err != nil {
		t.Fatal(err)
	}
	if err := writeFrame(f, frameResult, z.Bytes()); err != nil {
		t.Fatal(err)
	}
	f.Close()
	tests := []struct {
		name   string
		lines  string
		within time.Duration
		said   string
	}{
		{name: "halted", lines: "kdelta guest: sent in 0.01 s\nreboot: System halted\n", within: 5 * time.Second,
			said: "the guest halted instead of powering off"},
		{name: "silent", lines: "kdelta guest: sent in 0.01 s\n", within: sentGrace + 5*time.Second,
			said: "did not power off 10 s after it sent its result set"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d := t.TempDir()
			script := filepath.Join(d, "qemu")
			body := "#!/bin/sh\nfor a; do case \"$a\" in file:*) chan=\"${a#file:}\";; esac; done\n" +
				"cat " + frame + " > \"$chan\"\n" +
				"printf 'Linux version 6.1.0 (stand-in)\\nkdelta guest: /init started\\n%s' '" + tt.lines + "'\n" +
				"exec sleep 300\n"
			if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
				t.Fatal(err)
			}
			b := &boot{arch: arches["amd64"], qemu: script, kernel: "k", initrd: "i", accel: "tcg", cpus: 1, mem: "1G", timeout: 2 * time.Minute}
			start := time.Now()
			set, err := b.run(context.Background(), d)
			took := time.Since(start)
			if err != nil {
				t.Fatalf("run: %v", err)
			}
			if set == nil || len(set.Benchmarks) != 2 {
				t.Fatalf("the result set did not come home: %+v", set)
			}
			if took > tt.within {
				t.Errorf("run took %s, want under %s", took, tt.within)
			}
			if !strings.Contains(b.ended, tt.said) {
				t.Errorf("ended %q, want it to say %q", b.ended, tt.said)
			}
			if !b.initStarted {
				t.Error("/init's line not seen")
			}
		})
	}
}
