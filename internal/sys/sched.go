package sys

import (
	"errors"
	"fmt"
)

// PolicyName names a scheduling policy as chrt -p prints it.
func PolicyName(p int) string {
	switch p {
	case SchedOther:
		return "SCHED_OTHER"
	case SchedFIFO:
		return "SCHED_FIFO"
	case SchedRR:
		return "SCHED_RR"
	case SchedBatch:
		return "SCHED_BATCH"
	case SchedIdle:
		return "SCHED_IDLE"
	}
	return fmt.Sprintf("policy %d", p)
}

// Policy is a scheduling policy and its static priority.
type Policy struct {
	Policy   int
	Priority int
}

func (p Policy) String() string {
	if p.Policy == SchedFIFO || p.Policy == SchedRR {
		return fmt.Sprintf("%s %d", PolicyName(p.Policy), p.Priority)
	}
	return PolicyName(p.Policy)
}

// ErrNoPrivilege reports that the caller may not raise its scheduling
// policy (no CAP_SYS_NICE, no RLIMIT_RTPRIO).
var ErrNoPrivilege = errors.New("not permitted (needs root or CAP_SYS_NICE)")
