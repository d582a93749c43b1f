package sysinfo

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// addFiles adds the files of the fixture trees at rel as seeds.
func addFiles(f *testing.F, rels ...string) {
	for _, tr := range trees {
		for _, rel := range rels {
			if data, err := os.ReadFile(filepath.Join("testdata", tr.name, rel)); err == nil {
				f.Add(data)
			}
		}
	}
}

func FuzzParseConfig(f *testing.F) {
	addFiles(f, "boot/config-6.15.0-0.rc6.51.eln148.ppc64le", "boot/config-7.1.0-62.eln158.ppc64le",
		"boot/config-6.19.14-108.fc42.x86_64")
	if gz, err := os.ReadFile(filepath.Join("testdata", "vm-6.18", "proc", "config.gz")); err == nil {
		if text, err := gunzip(gz); err == nil {
			f.Add(text[:4096])
		}
	}
	f.Add([]byte("# CONFIG_X is not set\nCONFIG_Y=\"a=b\"\r\nbad line\n"))
	f.Add([]byte("CONFIG_=y\n#CONFIG_Z is not set\n=\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, _ := ParseConfig(data)
		for k := range cfg {
			if !isOptionName(k) {
				t.Fatalf("key %q is not an option name", k)
			}
		}
		// What a config gives must also come back from its stored form.
		back, err := gunzip(gzipBytes(data))
		if err != nil || !bytes.Equal(back, data) {
			t.Fatalf("gzip round trip: %v", err)
		}
		modelFromConfig(cfg)
		hzFromConfig(cfg)
		archFromConfig(cfg)
		cfg.subset()
	})
}

func FuzzParseCPUInfo(f *testing.F) {
	addFiles(f, "proc/cpuinfo")
	f.Add([]byte("vendor_id\t: IBM/S390\n# processors    : 2\nprocessor 0: version = 00,  identification = 4729E7,  machine = 2964\n"))
	f.Add([]byte("processor\t: 0\nCPU implementer\t: 0x41\nCPU architecture: 8\nCPU variant\t: 0xzz\nCPU part\t: 0xd0c\nCPU revision\t: 1\n"))
	f.Add([]byte("cpu\t\t: POWER9\nrevision\t: 2.2\n\nplatform\t: PowerNV\n"))
	f.Add([]byte(":\n::\nprocessor 9x: =,=\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		ci, err := ParseCPUInfo(data)
		if err == nil && ci == nil {
			t.Fatal("nil CPUInfo without an error")
		}
		if ci != nil && ci.Processors < 0 {
			t.Fatalf("negative processor count %d", ci.Processors)
		}
	})
}

func FuzzParsePreempt(f *testing.F) {
	addFiles(f, preemptFile)
	for _, s := range []string{
		"none voluntary (full) \n", "(none) voluntary full lazy \n", "full (lazy) \n", "(full) lazy",
		"", " \n", "(none) (full)", "none [full]", "()", "((lazy))", "none voluntary full",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		cur, modes, err := ParsePreempt(data)
		if err != nil {
			return
		}
		found := false
		for _, m := range modes {
			if !isModeWord(m) {
				t.Fatalf("mode %q is not a mode word", m)
			}
			found = found || m == cur
		}
		if !found {
			t.Fatalf("current mode %q not among %q", cur, modes)
		}
	})
}

func FuzzBootLogPreempt(f *testing.F) {
	for _, tr := range trees {
		if data, err := os.ReadFile(filepath.Join("testdata", tr.name, "dmesg.txt")); err == nil {
			f.Add(string(data))
		}
	}
	f.Add("6,123,57178,-;Dynamic Preempt: none\n")
	f.Add("Dynamic Preempt:Dynamic Preempt: full")
	f.Fuzz(func(t *testing.T, log string) {
		m := bootLogPreempt(log)
		if m != "" && (!isModeWord(m) || !strings.Contains(log, m)) {
			t.Fatalf("mode %q from %q", m, log)
		}
		bootLogPreemptRCU(log)
	})
}

func FuzzParseProcVersion(f *testing.F) {
	for _, tr := range trees {
		if data, err := os.ReadFile(filepath.Join("testdata", tr.name, "proc", "version")); err == nil {
			f.Add(string(data))
		}
	}
	f.Add("Linux version 1 ((((")
	f.Add("Linux version x (a) (b)) #")
	f.Fuzz(func(t *testing.T, s string) {
		rel, comp, ver := parseProcVersion(s)
		for _, part := range []string{rel, comp, ver} {
			if !strings.Contains(s, part) {
				t.Fatalf("%q is not part of %q", part, s)
			}
		}
	})
}

func FuzzParseCmdline(f *testing.F) {
	for _, tr := range trees {
		if data, err := os.ReadFile(filepath.Join("testdata", tr.name, "proc", "cmdline")); err == nil {
			f.Add(string(data))
		}
	}
	f.Add(`a="b c" "d e"=f -- g`)
	f.Add(`"unterminated x=y`)
	f.Fuzz(func(t *testing.T, s string) {
		list, m := parseCmdline(s)
		for _, p := range list {
			if p == "--" {
				t.Fatalf("-- kept in %q", list)
			}
			k, _, _ := strings.Cut(p, "=")
			if _, ok := m[k]; !ok {
				t.Fatalf("param %q missing from the map", p)
			}
		}
	})
}

// FuzzSmallParsers covers the one-line parsers: sysfs selector files
// ("always [madvise] never"), s390 /proc/sysinfo, tool version output.
func FuzzSmallParsers(f *testing.F) {
	for _, s := range []string{
		"always [madvise] never\n", "none [integrity] confidentiality", "[]", "[a", "a]",
		"Manufacturer:         IBM\nType:                 2964\nVM00 Control Program: z/VM    6.4.0\n",
		"perf version 6.1.192\n", "hackbench V 2.40\nUsage:", "stress-ng, version 0.15.06 (gcc 12.2.0)",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if v := selected(s); v != "" && !strings.Contains(s, "["+v+"]") {
			t.Fatalf("selected %q not bracketed in %q", v, s)
		}
		for k, v := range sysinfoFields([]byte(s)) {
			if k == "" || !strings.Contains(s, k) || !strings.Contains(s, v) {
				t.Fatalf("sysinfo field %q=%q not from %q", k, v, s)
			}
		}
		if v := parseToolVersion(s); v != "" && !strings.Contains(s, v) {
			t.Fatalf("version %q not in %q", v, s)
		}
	})
}
