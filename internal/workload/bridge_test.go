package workload

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/kdelta/kdelta/internal/sysinfo"
	"github.com/kdelta/kdelta/internal/testenv"
)

func TestParseCapEff(t *testing.T) {
	for _, tc := range []struct {
		name, status string
		want         uint64
		wantErr      bool
	}{
		{"root", "Name:\tcat\nCapInh:\t0000000000000000\nCapPrm:\t000001ffffffffff\nCapEff:\t000001ffffffffff\n", 0x1ffffffffff, false},
		{"no CAP_SYS_RESOURCE", "CapEff:\t000001fffeffffff\n", 0x1fffeffffff, false},
		{"unprivileged", "Uid:\t1000\t1000\t1000\t1000\nCapEff:\t0000000000000000\n", 0, false},
		{"missing", "Name:\tcat\n", 0, true},
		{"not hex", "CapEff:\tzz\n", 0, true},
	} {
		got, err := parseCapEff(tc.status)
		if (err != nil) != tc.wantErr || got != tc.want {
			t.Errorf("%s: parseCapEff = %#x, %v; want %#x, error %v", tc.name, got, err, tc.want, tc.wantErr)
		}
	}
}

func TestMissingCaps(t *testing.T) {
	const netAdmin, sysAdmin = 1 << 12, 1 << 21
	for _, tc := range []struct {
		caps uint64
		want []string // substrings of the reason; nil: no reason
	}{
		{0x1ffffffffff, nil},
		{netAdmin | sysAdmin, nil},
		{0, []string{"CAP_SYS_ADMIN", "CAP_NET_ADMIN"}},
		{sysAdmin, []string{"CAP_NET_ADMIN"}},
		{netAdmin, []string{"CAP_SYS_ADMIN"}},
	} {
		got := missingCaps(tc.caps)
		if (got == "") != (tc.want == nil) {
			t.Errorf("missingCaps(%#x) = %q", tc.caps, got)
		}
		for _, w := range tc.want {
			if !strings.Contains(got, w) {
				t.Errorf("missingCaps(%#x) = %q, does not name %s", tc.caps, got, w)
			}
		}
	}
}

func TestBridgeOperations(t *testing.T) {
	names := func(ops []bridgeOp) []string {
		var n []string
		for _, op := range ops {
			n = append(n, op.name)
		}
		return n
	}
	all := []string{"add-bridge", "vlan-filtering", "add-veth", "enslave", "up", "del-veth", "del-bridge"}
	if got := names(bridgeOps(true)); !reflect.DeepEqual(got, all) {
		t.Errorf("operations = %v, want %v", got, all)
	}
	noVLAN := append(all[:1:1], all[2:]...)
	if got := names(bridgeOps(false)); !reflect.DeepEqual(got, noVLAN) {
		t.Errorf("operations without VLAN filtering = %v, want %v", got, noVLAN)
	}
}

// TestVLANFilteringSupport decides vlan_filtering=auto on fixture trees:
// from the kernel config when there is one, by probe otherwise.
func TestVLANFilteringSupport(t *testing.T) {
	tree := func(files map[string]string) sysinfo.FS {
		root := t.TempDir()
		for rel, content := range files {
			p := filepath.Join(root, rel)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return sysinfo.FS{Root: root}
	}
	const rel = "proc/sys/kernel/osrelease"
	probed := false
	probe := func(on bool, err error) func() (bool, error) {
		return func() (bool, error) { probed = true; return on, err }
	}
	for _, tc := range []struct {
		name   string
		files  map[string]string
		probe  func() (bool, error)
		want   bool
		why    string
		probes bool
	}{
		{"config has it", map[string]string{rel: "6.19.1\n", "boot/config-6.19.1": "CONFIG_BRIDGE=m\nCONFIG_BRIDGE_VLAN_FILTERING=y\n"},
			probe(false, nil), true, "/boot/config-6.19.1: CONFIG_BRIDGE_VLAN_FILTERING=y", false},
		// This VM's kernel: bridge built in, VLAN filtering not.
		{"config lacks it", map[string]string{rel: "6.18.44\n", "boot/config-6.18.44": "CONFIG_BRIDGE=y\n# CONFIG_VLAN_8021Q is not set\n"},
			probe(true, nil), false, "/boot/config-6.18.44: CONFIG_BRIDGE_VLAN_FILTERING=n", false},
		{"config says not set", map[string]string{rel: "6.1.0\n", "boot/config-6.1.0": "# CONFIG_BRIDGE_VLAN_FILTERING is not set\n"},
			probe(true, nil), false, "CONFIG_BRIDGE_VLAN_FILTERING=n", false},
		{"no config, probe takes it", map[string]string{rel: "6.19.1\n"}, probe(true, nil), true, "a probe bridge took VLAN filtering", true},
		{"no config, probe refused", nil, probe(false, nil), false, "a probe bridge refused VLAN filtering", true},
		{"no config, no privilege", nil, probe(false, errors.New("network namespace: operation not permitted")), true,
			"the probe could not tell: network namespace: operation not permitted", true},
	} {
		probed = false
		on, why := vlanFilteringSupport(tree(tc.files), tc.probe)
		if on != tc.want || !strings.Contains(why, tc.why) || probed != tc.probes {
			t.Errorf("%s: %v (%s), probed %v; want %v (%s), probed %v", tc.name, on, why, probed, tc.want, tc.why, tc.probes)
		}
	}
}

// TestBridgeAutoDefault: the default resolves to this kernel's answer, in
// the parameters a run records, and an explicit value stays.
func TestBridgeAutoDefault(t *testing.T) {
	w, _ := Lookup("bridge")
	on, why := hostVLANFiltering()
	t.Logf("this kernel: VLAN filtering %v (%s)", on, why)
	for _, tc := range []struct{ given, want string }{{"", strconv.FormatBool(on)}, {"auto", strconv.FormatBool(on)}, {"true", "true"}, {"false", "false"}} {
		given := map[string]string{}
		if tc.given != "" {
			given["vlan_filtering"] = tc.given
		}
		vals, err := Resolve(w, given)
		if err != nil {
			t.Fatal(err)
		}
		if got := vals["vlan_filtering"]; got != tc.want {
			t.Errorf("vlan_filtering=%q resolves to %q, want %q", tc.given, got, tc.want)
		}
	}
	if _, err := ParseSpec("bridge:vlan_filtering=maybe"); err == nil || !strings.Contains(err.Error(), "one of auto|true|false") {
		t.Errorf("vlan_filtering=maybe: %v", err)
	}
	// The probe, which decides where no config is readable, must agree
	// with the config here, and leave nothing in the host's namespace.
	if os.Geteuid() == 0 {
		links := hostLinks(t)
		probed, err := probeVLANFiltering()
		if err != nil || probed != on {
			t.Errorf("probe: VLAN filtering %v, %v; the config says %v (%s)", probed, err, on, why)
		}
		if got := hostLinks(t); !reflect.DeepEqual(got, links) {
			t.Errorf("host links changed by the probe: before %v, after %v", links, got)
		}
	}
	// Where the kernel config is readable, the probe is not what decided,
	// and the config's answer is the one a test reads independently.
	if v, src, ok := kernelConfig("CONFIG_BRIDGE_VLAN_FILTERING"); ok && (v == "y") != on {
		t.Errorf("%s: CONFIG_BRIDGE_VLAN_FILTERING=%s, but auto decided %v (%s)", src, v, on, why)
	}
}

// hostLinks lists the link names in the test's own network namespace.
func hostLinks(t *testing.T) []string {
	t.Helper()
	out, err := exec.Command("ip", "-o", "link").Output()
	if err != nil {
		t.Fatalf("ip -o link: %v", err)
	}
	var names []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		// "4: eth0: <BROADCAST,...", "7: veth1@veth0: <...": the name is
		// the second field, before any @peer.
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		name, _, _ := strings.Cut(strings.TrimSuffix(f[1], ":"), "@")
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

func netnsList(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("ip", "netns", "list").CombinedOutput()
	if err != nil {
		t.Fatalf("ip netns list: %v: %s", err, out)
	}
	return string(out)
}

func TestBridgeRun(t *testing.T) {
	w, _ := Lookup("bridge")
	if reason := w.(Prechecker).Precheck(Values{}); reason != "" {
		testenv.Skip(t, reason)
	}
	if _, err := exec.LookPath("ip"); err != nil {
		testenv.Skip(t, "needs ip(8) to inspect the host's links: ", err)
	}
	// Whether this kernel can turn VLAN filtering on decides what the
	// default run must do.
	vlan, src, known := kernelConfig("CONFIG_BRIDGE_VLAN_FILTERING")
	links, netns := hostLinks(t), netnsList(t)

	// The default (auto) must run on every kernel, with or without VLAN
	// filtering (issue 12: it was skipped where the kernel lacks it).
	for _, tc := range []struct{ vlan string }{{"auto"}, {"true"}, {"false"}} {
		t.Run("vlan_filtering="+tc.vlan, func(t *testing.T) {
			vals, err := Resolve(w, map[string]string{"cycles": "3", "vlan_filtering": tc.vlan})
			if err != nil {
				t.Fatal(err)
			}
			if tc.vlan == "auto" {
				tc.vlan = vals["vlan_filtering"]
				t.Logf("auto: vlan_filtering=%s", tc.vlan)
			} else if vals["vlan_filtering"] != tc.vlan {
				t.Fatalf("vlan_filtering=%s resolved to %q", tc.vlan, vals["vlan_filtering"])
			}
			explicit := t.Name() != "TestBridgeRun/vlan_filtering=auto"
			task := NewTask(vals, nil)
			err = w.Run(task)
			if reason, ok := SkipReason(err); ok {
				if tc.vlan == "true" && strings.Contains(reason, "CONFIG_BRIDGE_VLAN_FILTERING") {
					if !explicit {
						t.Fatalf("the default skipped for want of VLAN filtering: %s", reason)
					}
					if known && vlan == "y" {
						t.Fatalf("skipped although %s has CONFIG_BRIDGE_VLAN_FILTERING=y: %s", src, reason)
					}
					if !strings.Contains(reason, "vlan_filtering=false") {
						t.Errorf("skip reason %q does not say how to run without VLAN filtering", reason)
					}
					// The kernel lacks it: what auto decides must agree,
					// and then this skip is the right answer.
					if on, why := hostVLANFiltering(); on {
						t.Fatalf("auto would turn VLAN filtering on (%s), but the kernel refused it: %s", why, reason)
					} else {
						t.Logf("skipped, as the kernel lacks VLAN filtering (%s): %s", why, reason)
					}
					return
				}
				testenv.Skip(t, reason)
			}
			if err != nil {
				t.Fatal(err)
			}
			if !task.Readied() {
				t.Error("Run never called Ready")
			}
			r := task.Report
			if r.Ops != 3 || r.Latency == nil || r.Latency.Count != 3 || r.Latency.Unit != "ms" {
				t.Errorf("ops %v, latency %+v; want 3 cycles in ms", r.Ops, r.Latency)
			}
			ops := bridgeOps(tc.vlan == "true")
			if got, want := r.Info["operations"], describeOps(ops); got != want {
				t.Errorf("info operations = %q, want %q", got, want)
			}
			sum := 0.0
			for _, op := range ops {
				v, ok := r.Values[op.name+"_ms"]
				if !ok || v <= 0 {
					t.Errorf("%s_ms = %v, %v", op.name, v, ok)
				}
				sum += v
			}
			if _, ok := r.Values["vlan-filtering_ms"]; ok != (tc.vlan == "true") {
				t.Errorf("vlan-filtering_ms set = %v with vlan_filtering=%s", ok, tc.vlan)
			}
			// The steps make up the cycle: their means add up to no
			// more than the mean cycle, which only adds clock reads.
			if c := r.Values["ms/cycle"]; sum > c || c <= 0 {
				t.Errorf("step means add up to %.3f ms, cycle %.3f ms", sum, c)
			}
			if tot := r.Values["total"]; tot*1000 < r.Values["ms/cycle"]*3*0.999 {
				t.Errorf("total %v s is less than 3 cycles of %v ms", tot, r.Values["ms/cycle"])
			}
			t.Logf("%.3f ms/cycle: %v", r.Values["ms/cycle"], r.Values)

			// The links lived in the private namespace only, and no
			// named namespace was made.
			if got := hostLinks(t); !reflect.DeepEqual(got, links) {
				t.Errorf("host links changed: before %v, after %v", links, got)
			}
			if got := netnsList(t); got != netns {
				t.Errorf("ip netns list changed: before %q, after %q", netns, got)
			}
		})
	}
}
