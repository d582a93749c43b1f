//go:build !linux

package sys

import (
	"errors"
	"syscall"
)

// Capability bits, with Linux's numbers (the CapEff mask of
// /proc/PID/status, which only Linux has).
const (
	CapNetAdmin = 12
	CapSysAdmin = 21
)

// IsEOPNOTSUPP tells whether err is EOPNOTSUPP.
func IsEOPNOTSUPP(err error) bool { return errors.Is(err, syscall.EOPNOTSUPP) }
