package vm

import (
	"fmt"
	"strings"

	"github.com/kdelta/kdelta/internal/workload"
)

// tcgWork are, by architecture, the workload parameters a boot under TCG
// runs in place of the workloads' defaults where emulating those would
// take most of a minute or more, as "param=value" by workload. A null
// system call that costs 50–100 ns on hardware costs, emulated on an
// x86 host, about 0.44 µs on amd64, 1.3 µs on ppc64le, 2.4 µs on arm64
// and 16 µs on s390x (bench/vm-arch.sh), so syscall's 10,000,000 calls
// and a warm-up of 1,000,000 would take 5 s, 14 s, 26 s and three
// minutes: the foreign architectures' runs are cut to 2 to 3 s of
// emulated calls. amd64 keeps its defaults. Only a parameter the user did
// not give is replaced; the figures (ns/call) are per call whatever the
// count, and the count is in the benchmark's parameters, so the set says
// what ran.
var tcgWork = map[string]map[string]string{
	"ppc64le": {"syscall": "calls=2000000"},
	"arm64":   {"syscall": "calls=1000000"},
	"s390x":   {"syscall": "calls=200000"},
}

// tcgJob returns the job a TCG boot of architecture a runs: j with the
// parameters of tcgWork added to the specs that do not give them, and a
// note for each, to say on stderr and record in the set. j itself is left
// as it is.
func tcgJob(j *Job, a *arch) (*Job, []string) {
	work := tcgWork[a.Name]
	if len(work) == 0 {
		return j, nil
	}
	c := *j
	c.Specs = append([]string(nil), j.Specs...)
	var notes []string
	for i, spec := range c.Specs {
		name, rest, _ := strings.Cut(spec, ":")
		kv, ok := work[name]
		if !ok {
			continue
		}
		param, _, _ := strings.Cut(kv, "=")
		if givesParam(rest, param) {
			continue
		}
		def := ""
		if w, ok := workload.Lookup(name); ok {
			for _, p := range w.Params() {
				if p.Name == param {
					def = p.Default
				}
			}
		}
		if rest == "" {
			c.Specs[i] = name + ":" + kv
		} else {
			c.Specs[i] = spec + "," + kv
		}
		notes = append(notes, fmt.Sprintf("under TCG, %s guests run %s with %s instead of its default %s=%s, which emulated would take most of a minute or more; the figures are per call as ever (give %s:%s=%s for the default)",
			a.Name, name, kv, param, def, name, param, def))
	}
	return &c, notes
}

// givesParam tells whether the parameters of a spec ("k=v,k=v") give
// param.
func givesParam(params, param string) bool {
	for _, kv := range strings.Split(params, ",") {
		if k, _, _ := strings.Cut(kv, "="); strings.TrimSpace(k) == param {
			return true
		}
	}
	return false
}
