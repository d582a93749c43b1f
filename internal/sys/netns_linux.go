package sys

import (
	"errors"

	"golang.org/x/sys/unix"
)

// Capability bits, as they appear in the CapEff mask of /proc/PID/status.
// Creating a network namespace needs CAP_SYS_ADMIN; adding and changing
// links inside it needs CAP_NET_ADMIN.
const (
	CapNetAdmin = unix.CAP_NET_ADMIN
	CapSysAdmin = unix.CAP_SYS_ADMIN
)

// IsEOPNOTSUPP tells whether err is EOPNOTSUPP, which rtnetlink returns
// for a link kind whose driver is neither built in nor loadable, and for a
// link option the kernel was built without.
func IsEOPNOTSUPP(err error) bool { return errors.Is(err, unix.EOPNOTSUPP) }
