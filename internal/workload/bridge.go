package workload

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/sys"
	"github.com/kdelta/kdelta/internal/sysinfo"
)

// bridgeCycle repeats the bridge add/configure/delete cycle of Rezki's
// timing in the "Reduce synchronize_rcu() latency" thread: networking
// control paths that wait for RCU grace periods (rcu_barrier() on every
// unregister, synchronize_net() under RTNL). It is a new workload, not a
// replica: that script is not public.
//
// Everything happens in an anonymous network namespace made by unshare on
// a thread that is never unlocked, so the links it makes are invisible to
// the host and vanish with the process even if it is killed. A named
// namespace (ip netns add) would leave a bind mount behind on SIGKILL.
type bridgeCycle struct{}

func init() { Register(bridgeCycle{}) }

// Link names inside the private namespace; nothing else lives there, so
// they never clash.
const (
	bridgeName = "kdbr0"
	vethName   = "kdveth0"
	peerName   = "kdveth1"
)

func (bridgeCycle) Name() string { return "bridge" }

func (bridgeCycle) Doc() string {
	return "bridge add/configure/delete cycles over rtnetlink in a private network namespace"
}

func (bridgeCycle) Params() []Param {
	return []Param{
		{Name: "cycles", Kind: Int, Default: "100", Min: 1, Doc: "add/configure/delete cycles per run"},
		{Name: "vlan_filtering", Default: "auto", Choices: []string{"auto", "true", "false"},
			Doc: "turn VLAN filtering on in each cycle (needs CONFIG_BRIDGE_VLAN_FILTERING); auto: on where the kernel has it, recorded as true or false"},
	}
}

func (bridgeCycle) Metrics() []result.Metric {
	m := []result.Metric{
		{Name: "ms/cycle", Unit: "ms", Better: result.Lower, Doc: "wall time of one cycle"},
		{Name: "total", Unit: "s", Better: result.Lower, Doc: "wall time of all cycles, as time(1) real"},
	}
	for _, op := range bridgeOps(true) {
		m = append(m, result.Metric{Name: op.name + "_ms", Unit: "ms", Better: result.Lower,
			Doc: "mean latency of " + op.name + ": " + op.msgs})
	}
	return m
}

// ResolveAuto sets vlan_filtering=auto to whether this kernel can turn
// VLAN filtering on, so that the default runs everywhere and the run
// records what it did.
func (bridgeCycle) ResolveAuto(v Values) {
	if v["vlan_filtering"] == "auto" {
		on, _ := hostVLANFiltering()
		v["vlan_filtering"] = strconv.FormatBool(on)
	}
}

// hostVLANFiltering is vlanFilteringSupport for this machine, decided once
// per process.
var hostVLANFiltering = sync.OnceValues(func() (bool, string) {
	return vlanFilteringSupport(sysinfo.FS{Root: "/"}, probeVLANFiltering)
})

// vlanFilteringSupport tells whether the kernel of the machine at fs can
// turn a bridge's VLAN filtering on, and how that was decided: from the
// kernel config (CONFIG_BRIDGE_VLAN_FILTERING) when it is readable, else
// by probe. A probe that cannot tell (no privilege: the run is skipped
// then anyway) answers on, the kernel default of distributions.
func vlanFilteringSupport(fs sysinfo.FS, probe func() (bool, error)) (bool, string) {
	if cfg, src, _ := fs.KernelConfig(); cfg != nil {
		on := cfg.On("CONFIG_BRIDGE_VLAN_FILTERING")
		return on, fmt.Sprintf("%s: CONFIG_BRIDGE_VLAN_FILTERING=%s", src, cfg.Get("CONFIG_BRIDGE_VLAN_FILTERING"))
	}
	on, err := probe()
	if err != nil {
		return true, fmt.Sprintf("no kernel config, and the probe could not tell: %v", err)
	}
	return on, fmt.Sprintf("no kernel config; a probe bridge %s VLAN filtering", map[bool]string{true: "took", false: "refused"}[on])
}

// probeVLANFiltering makes a bridge in a network namespace of its own and
// turns VLAN filtering on: EOPNOTSUPP means the kernel lacks it. The
// bridge is deleted before the thread, and with it the namespace, ends.
func probeVLANFiltering() (bool, error) {
	type answer struct {
		on  bool
		err error
	}
	done := make(chan answer, 1)
	go func() {
		// Never unlocked: the thread in the new namespace ends with the
		// goroutine.
		runtime.LockOSThread()
		if err := sys.UnshareNet(); err != nil {
			done <- answer{err: fmt.Errorf("network namespace: %w", err)}
			return
		}
		h, err := sys.OpenRtnetlink()
		if err != nil {
			done <- answer{err: fmt.Errorf("rtnetlink socket: %w", err)}
			return
		}
		defer h.Close()
		var s bridgeState
		ops := bridgeOps(true)[:2] // add-bridge, vlan-filtering
		if err := ops[0].do(h, &s); err != nil {
			done <- answer{err: fmt.Errorf("%s: %w", ops[0].name, err)}
			return
		}
		err = ops[1].do(h, &s)
		removeBridgeLinks(h)
		switch {
		case err == nil:
			done <- answer{on: true}
		case sys.IsEOPNOTSUPP(err):
			done <- answer{on: false}
		default:
			done <- answer{err: fmt.Errorf("%s: %w", ops[1].name, err)}
		}
	}()
	a := <-done
	return a.on, a.err
}

// Precheck reads the effective capabilities: making the namespace needs
// CAP_SYS_ADMIN, changing links in it CAP_NET_ADMIN.
func (bridgeCycle) Precheck(Values) string {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return ""
	}
	caps, err := parseCapEff(string(b))
	if err != nil {
		return ""
	}
	return missingCaps(caps)
}

// missingCaps says which of the capabilities the bridge workload needs are
// absent from the effective set caps, or "" when none is.
func missingCaps(caps uint64) string {
	var miss []string
	if caps&(1<<sys.CapSysAdmin) == 0 {
		miss = append(miss, "CAP_SYS_ADMIN (to create a network namespace)")
	}
	if caps&(1<<sys.CapNetAdmin) == 0 {
		miss = append(miss, "CAP_NET_ADMIN (to add and change links)")
	}
	if len(miss) == 0 {
		return ""
	}
	return "needs " + strings.Join(miss, " and ") + ": run as root"
}

// parseCapEff returns the effective capability mask from the text of
// /proc/PID/status.
func parseCapEff(status string) (uint64, error) {
	sc := bufio.NewScanner(strings.NewReader(status))
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "CapEff:"); ok {
			caps, err := strconv.ParseUint(strings.TrimSpace(v), 16, 64)
			if err != nil {
				return 0, fmt.Errorf("bad CapEff %q in /proc/self/status: %w", strings.TrimSpace(v), err)
			}
			return caps, nil
		}
	}
	return 0, fmt.Errorf("no CapEff line in /proc/self/status")
}

// bridgeState is what one cycle's operations hand on to the next.
type bridgeState struct {
	br, veth *sys.Link
}

// A bridgeOp is one timed step of a cycle.
type bridgeOp struct {
	name string
	// msgs are the rtnetlink requests the step sends, in order, including
	// the lookups the netlink library makes for an ifindex.
	msgs string
	do   func(h *sys.Rtnetlink, s *bridgeState) error
}

// bridgeOps returns the steps of one cycle, in order.
func bridgeOps(vlanFiltering bool) []bridgeOp {
	ops := []bridgeOp{{
		name: "add-bridge",
		msgs: "RTM_NEWLINK " + bridgeName + " type bridge; RTM_GETLINK " + bridgeName,
		do: func(h *sys.Rtnetlink, s *bridgeState) (err error) {
			s.br, err = h.AddBridge(bridgeName)
			return err
		},
	}}
	if vlanFiltering {
		ops = append(ops, bridgeOp{
			name: "vlan-filtering",
			msgs: "RTM_NEWLINK " + bridgeName + " IFLA_BR_VLAN_FILTERING=1",
			do: func(h *sys.Rtnetlink, s *bridgeState) error {
				return h.SetVLANFiltering(s.br, true)
			},
		})
	}
	return append(ops, []bridgeOp{{
		name: "add-veth",
		msgs: "RTM_NEWLINK " + vethName + " type veth peer " + peerName + "; RTM_GETLINK " + vethName,
		do: func(h *sys.Rtnetlink, s *bridgeState) (err error) {
			s.veth, err = h.AddVeth(vethName, peerName)
			return err
		},
	}, {
		name: "enslave",
		msgs: "RTM_SETLINK " + vethName + " IFLA_MASTER=" + bridgeName,
		do: func(h *sys.Rtnetlink, s *bridgeState) error {
			return h.SetMaster(s.veth, s.br)
		},
	}, {
		name: "up",
		msgs: "RTM_GETLINK " + peerName + "; RTM_NEWLINK IFF_UP " + bridgeName + ", " + vethName + ", " + peerName,
		do: func(h *sys.Rtnetlink, s *bridgeState) error {
			peer, err := h.LinkByName(peerName)
			if err != nil {
				return err
			}
			for _, l := range []*sys.Link{s.br, s.veth, peer} {
				if err := h.SetUp(l); err != nil {
					return fmt.Errorf("%s: %w", l.Name(), err)
				}
			}
			return nil
		},
	}, {
		name: "del-veth",
		msgs: "RTM_DELLINK " + vethName + " (its peer goes with it)",
		do: func(h *sys.Rtnetlink, s *bridgeState) error {
			return h.Delete(s.veth)
		},
	}, {
		name: "del-bridge",
		msgs: "RTM_DELLINK " + bridgeName,
		do: func(h *sys.Rtnetlink, s *bridgeState) error {
			return h.Delete(s.br)
		},
	}}...)
}

// describeOps writes the ordered operation list for the run's Info.
func describeOps(ops []bridgeOp) string {
	parts := make([]string, len(ops))
	for i, op := range ops {
		parts[i] = op.name + " (" + op.msgs + ")"
	}
	return strings.Join(parts, ", ")
}

func (bridgeCycle) Run(t *Task) error {
	ops := bridgeOps(t.Params.Bool("vlan_filtering"))
	t.Info("operations", describeOps(ops))
	recordRCUSettings(t, "/")
	// The namespace belongs to the thread that unshares; a goroutine of
	// its own locks that thread for good, so the caller's thread (and
	// anything the runtime later schedules on it) stays in the host's
	// namespace. The caller only waits.
	done := make(chan error, 1)
	go func() { done <- bridgeRun(t, ops, t.Params.Int("cycles")) }()
	return <-done
}

// bridgeRun does the whole run on a thread in a new network namespace.
func bridgeRun(t *Task, ops []bridgeOp, cycles int) error {
	// Never unlocked: when this goroutine returns the runtime ends the
	// thread, and with it the last reference to the namespace but for
	// the handle's sockets, closed below.
	runtime.LockOSThread()
	if err := sys.UnshareNet(); err != nil {
		if sys.IsEPERM(err) {
			return Skip("creating a network namespace needs CAP_SYS_ADMIN: %v", err)
		}
		if errors.Is(err, sys.EINVAL) {
			return Skip("network namespaces not available (CONFIG_NET_NS): %v", err)
		}
		return err
	}
	// The sockets are made on this thread, so they talk to the new
	// namespace whichever thread later uses them.
	h, err := sys.OpenRtnetlink()
	if err != nil {
		return fmt.Errorf("rtnetlink socket in the new namespace: %w", err)
	}
	defer h.Close()

	lat := make([][]float64, len(ops))
	for i := range lat {
		lat[i] = make([]float64, cycles)
	}
	cyc := make([]float64, cycles)
	// The garbage collector stays on: the netlink library allocates per
	// request, and a collection costs microseconds against operations
	// that take milliseconds.
	if err := t.Ready(); err != nil {
		return err
	}
	start := time.Now()
	for c := 0; c < cycles; c++ {
		var s bridgeState
		c0 := time.Now()
		for i, op := range ops {
			o0 := time.Now()
			if err := op.do(h, &s); err != nil {
				removeBridgeLinks(h)
				return bridgeOpError(op, c, err)
			}
			lat[i][c] = float64(time.Since(o0).Nanoseconds()) / 1e6
		}
		cyc[c] = float64(time.Since(c0).Nanoseconds()) / 1e6
	}
	total := time.Since(start)
	if err := t.End(); err != nil {
		return err
	}

	t.SetOps(float64(cycles))
	t.Count("cycles", float64(cycles))
	t.Set("total", total.Seconds())
	t.Set("ms/cycle", float64(total.Nanoseconds())/1e6/float64(cycles))
	for i, op := range ops {
		t.Set(op.name+"_ms", Summarize("ms", lat[i]).Mean)
	}
	t.Latencies("ms", cyc)
	return nil
}

// bridgeOpError turns a failed step into a skip when the kernel or the
// privilege is missing, and into an error naming the step otherwise.
func bridgeOpError(op bridgeOp, cycle int, err error) error {
	switch {
	case sys.IsEPERM(err):
		return Skip("rtnetlink needs CAP_NET_ADMIN: %s: %v", op.name, err)
	case sys.IsEOPNOTSUPP(err) && op.name == "vlan-filtering":
		return Skip("bridge VLAN filtering not available (kernel built without CONFIG_BRIDGE_VLAN_FILTERING?): %v; run bridge:vlan_filtering=false", err)
	case sys.IsEOPNOTSUPP(err) && (op.name == "add-bridge" || op.name == "add-veth"):
		return Skip("bridge or veth not available: %s: %v", op.name, err)
	}
	return fmt.Errorf("bridge cycle %d, %s (%s): %w", cycle+1, op.name, op.msgs, err)
}

// removeBridgeLinks deletes whatever a failed cycle left. The namespace
// dies with the process anyway; this keeps a long-lived caller (a test)
// from carrying links around.
func removeBridgeLinks(h *sys.Rtnetlink) {
	for _, name := range []string{vethName, bridgeName} {
		if l, err := h.LinkByName(name); err == nil {
			_ = h.Delete(l)
		}
	}
}
