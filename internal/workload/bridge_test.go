package workload

import (
	"os/exec"
	"reflect"
	"sort"
	"strings"
	"testing"

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

	for _, tc := range []struct{ vlan string }{{"true"}, {"false"}} {
		t.Run("vlan_filtering="+tc.vlan, func(t *testing.T) {
			vals, err := Resolve(w, map[string]string{"cycles": "3", "vlan_filtering": tc.vlan})
			if err != nil {
				t.Fatal(err)
			}
			task := NewTask(vals, nil)
			err = w.Run(task)
			if reason, ok := SkipReason(err); ok {
				if tc.vlan == "true" && strings.Contains(reason, "CONFIG_BRIDGE_VLAN_FILTERING") {
					if known && vlan == "y" {
						t.Fatalf("skipped although %s has CONFIG_BRIDGE_VLAN_FILTERING=y: %s", src, reason)
					}
					if !strings.Contains(reason, "vlan_filtering=false") {
						t.Errorf("skip reason %q does not say how to run without VLAN filtering", reason)
					}
					if known {
						testenv.Skipf(t, "%s (%s: CONFIG_BRIDGE_VLAN_FILTERING=%q)", reason, src, vlan)
					}
					testenv.Skipf(t, "%s (the kernel config does not set CONFIG_BRIDGE_VLAN_FILTERING, or is not readable)", reason)
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
