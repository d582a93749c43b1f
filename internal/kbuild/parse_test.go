package kbuild

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseConfig(t *testing.T) {
	tests := []struct {
		name, in string
		want     map[string]string
		err      string
	}{
		{name: "values", in: "CONFIG_A=y\n# CONFIG_B is not set\nCONFIG_C=\"x y\"\n\n# a comment\nCONFIG_D=0x10\n",
			want: map[string]string{"CONFIG_A": "y", "CONFIG_B": "n", "CONFIG_C": `"x y"`, "CONFIG_D": "0x10"}},
		{name: "not a config line", in: "CONFIG_A=y\nhello\n", err: `line 2: "hello" is not CONFIG_NAME=VALUE`},
		{name: "not CONFIG_", in: "FOO=y\n", err: "line 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseConfig([]byte(tt.in))
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(tt.want, got) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// TestNotOn: the options of the fragment set to y or m that the final
// config lacks are named; a module built in counts as on.
func TestNotOn(t *testing.T) {
	frag := "CONFIG_A=y\nCONFIG_B=m\nCONFIG_C=y\n# CONFIG_D is not set\nCONFIG_E=\"\"\n"
	final := map[string]string{"CONFIG_A": "y", "CONFIG_B": "y", "CONFIG_D": "n"}
	if got := notOn(frag, final); !reflect.DeepEqual(got, []string{"CONFIG_C=y"}) {
		t.Errorf("not on %q, want [CONFIG_C=y]", got)
	}
}

// TestFragments: every architecture's fragment parses, and each holds
// what its guest cannot do without.
func TestFragments(t *testing.T) {
	for _, a := range []string{"amd64", "arm64", "ppc64le", "s390x"} {
		f, err := Fragment(a)
		if err != nil {
			t.Fatal(err)
		}
		cfg, err := ParseConfig([]byte(f))
		if err != nil {
			t.Fatalf("%s: %v", a, err)
		}
		for _, o := range []string{"CONFIG_BLK_DEV_INITRD", "CONFIG_DEVTMPFS", "CONFIG_PROC_FS", "CONFIG_9P_FS"} {
			if cfg[o] != "y" {
				t.Errorf("%s: %s is %q, want y", a, o, cfg[o])
			}
		}
	}
	if _, err := Fragment("mips"); err == nil {
		t.Error("a fragment for mips")
	}
}

func TestParseCommitList(t *testing.T) {
	tests := []struct {
		name, in string
		want     []string
		err      string
	}{
		{name: "oneline", in: "abc123 sys: a subject\n\n# left out\ndef456\n", want: []string{"abc123", "def456"}},
		{name: "a range", in: "a..b\n", err: "line 1"},
		{name: "an option", in: "--all\n", err: "line 1"},
		{name: "empty", in: "# nothing\n", err: "names no commit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseCommitList(strings.NewReader(tt.in))
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(tt.want, got) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// TestResolveErrors: refs that name no kernel to build fail in one line
// naming the ref.
func TestResolveErrors(t *testing.T) {
	for _, ref := range []string{"git:", "tree:", "tree:/nonexistent", "git:/nonexistent/dir@HEAD", "deb:linux-image"} {
		_, err := Resolve(ref, false)
		if err == nil || !strings.Contains(err.Error(), ref) || strings.Contains(err.Error(), "\n") {
			t.Errorf("Resolve(%q): %v, want one line naming it", ref, err)
		}
	}
}

func FuzzParseConfig(f *testing.F) {
	f.Add([]byte("CONFIG_A=y\n# CONFIG_B is not set\n"))
	f.Add([]byte("CONFIG_C=\"x\"\nbad\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ParseConfig(data)
		if err != nil {
			return
		}
		for k := range m {
			if !strings.HasPrefix(k, "CONFIG_") {
				t.Fatalf("key %q", k)
			}
		}
	})
}

func FuzzParseCommitList(f *testing.F) {
	f.Add("abc123 subject\n# c\n")
	f.Add("a..b\n")
	f.Fuzz(func(t *testing.T, s string) {
		revs, err := parseCommitList(strings.NewReader(s))
		if err != nil {
			return
		}
		for _, r := range revs {
			if r == "" || strings.HasPrefix(r, "-") || strings.Contains(r, "..") {
				t.Fatalf("revision %q", r)
			}
		}
	})
}
