package sysinfo

import (
	"reflect"
	"testing"
)

func TestParseProcVersion(t *testing.T) {
	cases := []struct {
		in                         string
		release, compiler, version string
	}{
		{"Linux version 6.18.44-fc-v657 (builder@sandboxing) (gcc (GCC) 15.3.0, GNU ld (GNU Binutils) 2.46) #1 SMP PREEMPT_DYNAMIC @0\n",
			"6.18.44-fc-v657", "gcc (GCC) 15.3.0, GNU ld (GNU Binutils) 2.46", "#1 SMP PREEMPT_DYNAMIC @0"},
		// arm64-nvidia-dgx-gb10-hwloc/proc/version in the shared fixtures.
		{"Linux version 6.17.0-1014-nvidia (buildd@bos03-arm64-009) (aarch64-linux-gnu-gcc-13 (Ubuntu 13.3.0-6ubuntu2~24.04.1) 13.3.0, GNU ld (GNU Binutils for Ubuntu) 2.42) #14-Ubuntu SMP PREEMPT_DYNAMIC Tue Mar 17 19:01:40 UTC 2026",
			"6.17.0-1014-nvidia", "aarch64-linux-gnu-gcc-13 (Ubuntu 13.3.0-6ubuntu2~24.04.1) 13.3.0, GNU ld (GNU Binutils for Ubuntu) 2.42", "#14-Ubuntu SMP PREEMPT_DYNAMIC Tue Mar 17 19:01:40 UTC 2026"},
		// Old kernels name no linker and one compiler group.
		{"Linux version 2.6.32 (root@host) (gcc version 4.4.7 (GCC) ) #1 SMP Tue Jun 5 2012",
			"2.6.32", "gcc version 4.4.7 (GCC)", "#1 SMP Tue Jun 5 2012"},
		{"Linux version 5.0 #1", "5.0", "", "#1"},
		{"not a banner", "", "", ""},
	}
	for _, c := range cases {
		r, comp, v := parseProcVersion(c.in)
		if r != c.release || comp != c.compiler || v != c.version {
			t.Errorf("parseProcVersion(%q)\n = %q, %q, %q\nwant %q, %q, %q", c.in, r, comp, v, c.release, c.compiler, c.version)
		}
	}
}

func TestParseCmdline(t *testing.T) {
	list, m := parseCmdline(`BOOT_IMAGE=/vmlinuz ro quiet preempt=none preempt=full dyndbg="file a.c +p" nosmt -- --init-arg=1`)
	wantList := []string{"BOOT_IMAGE=/vmlinuz", "ro", "quiet", "preempt=none", "preempt=full", "dyndbg=file a.c +p", "nosmt"}
	if !reflect.DeepEqual(list, wantList) {
		t.Errorf("params %q\nwant %q", list, wantList)
	}
	want := map[string]string{"BOOT_IMAGE": "/vmlinuz", "ro": "", "quiet": "", "preempt": "full", "dyndbg": "file a.c +p", "nosmt": ""}
	if !reflect.DeepEqual(m, want) {
		t.Errorf("map %v\nwant %v", m, want)
	}
}

func TestTaint(t *testing.T) {
	cases := map[string]string{
		"0":      "0 (not tainted)",
		"4096":   "4096 (O)",
		"12289":  "12289 (P O E)",
		"524288": "524288 (J)",
	}
	for in, want := range cases {
		root := t.TempDir()
		writeFile(t, root, "proc/sys/kernel/tainted", in+"\n")
		fp := Collect(FS{Root: root}, Options{})
		if fp.Taint.Value != want {
			t.Errorf("tainted %s: %#v, want %q", in, fp.Taint, want)
		}
	}
}
