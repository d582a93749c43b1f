package mail

import (
	"regexp"
	"strings"
)

// setupRE matches the lines that state a setup: machine, CPUs, SMT,
// preemption, tuned profile, kernel config, governor, versions.
var setupRE = regexp.MustCompile(`(?i)\b(machine|cpus?|vcpus?|cores?|smt|preempt\w*|tuned profile|governor|numa|sockets?|lpar|guest|virtuali[sz]ation|CONFIG_\w+|selinux|gcc|glibc|stress-ng \d|kernel \d|v\d+\.\d+|platform|8xx|power\d+|epyc|xeon|spr|icelake|x86_64|ppc64le?|aarch64|arm64|s390x?)\b`)

// setup keeps the lines of the section that state its setup; a line of
// an output or table that was read is the tool's, not a statement
// ("stress-ng: info: [16107] dispatching hogs: 1 cpu, 1 switch").
func (s *Section) setup(ps []paragraph) {
	inOutput := func(n int) bool {
		for _, o := range s.Outputs {
			if n >= o.Line && n <= o.End {
				return true
			}
		}
		return false
	}
	for _, p := range ps {
		for _, l := range p {
			t := strings.TrimSpace(l.Text)
			if inOutput(l.N) || commandOf(t) != "" || len(t) < 6 || len(t) > 200 || strings.HasPrefix(t, "+") || strings.HasPrefix(t, "- ") && strings.Contains(t, "*") || strings.HasPrefix(t, "*") || endOfReport(t) {
				continue
			}
			if setupRE.MatchString(t) && (strings.HasPrefix(t, "-") || strings.Contains(t, ":") || strings.HasPrefix(t, "CONFIG_") || strings.Contains(t, "on ") || strings.Contains(t, "with ")) {
				s.Setup = append(s.Setup, l)
			}
		}
	}
}
