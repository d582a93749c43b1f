package workload

import "strings"

// quickSuite is `kdelta run --quick`: every seed workload with parameters
// small enough that the suite, with its default repeats, stays under two
// minutes on a two-core machine. Workloads not built into this binary are
// left out.
var quickSuite = []string{
	"syscall:calls=2000000",
	"pipe:loops=50000",
	"messaging:groups=2,loops=100",
	"kill:ops=5000",
	"rcu:calls=50",
	"bridge:cycles=5,vlan_filtering=false",
	"pgbench:scale=1,duration=5s,script=select-only",
	"context_switch:timeout=1",
}

// QuickSuite returns the specs of the quick suite.
func QuickSuite() ([]Spec, error) {
	var specs []Spec
	for _, s := range quickSuite {
		name := s
		if i := strings.IndexByte(s, ':'); i >= 0 {
			name = s[:i]
		}
		if _, ok := Lookup(name); !ok {
			continue
		}
		sp, err := ParseSpec(s)
		if err != nil {
			return nil, err
		}
		specs = append(specs, sp)
	}
	return specs, nil
}

// QuickSpecs returns the quick suite as written ("rcu:calls=50"): the
// parameters it shrinks, without the defaults of the rest.
func QuickSpecs() []string { return append([]string(nil), quickSuite...) }
