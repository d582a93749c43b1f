package sys

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"syscall"
)

// Errors that perf_event_open's errno is classified into (see PerfError).
var (
	// ErrPerfNotSupported: the event does not exist here (no PMU for it, a
	// virtual machine without a virtual PMU, an unknown tracepoint id).
	ErrPerfNotSupported = errors.New("not supported")
	// ErrPerfPermission: perf_event_paranoid or a missing capability forbids
	// the event.
	ErrPerfPermission = errors.New("permission denied")
)

// A PerfError is a failed perf_event_open or read of a perf fd, classified.
type PerfError struct {
	Errno syscall.Errno
	// Kind is ErrPerfNotSupported, ErrPerfPermission or nil (any other
	// failure: EINVAL, EMFILE, ESRCH...).
	Kind error
	// Paranoid is the value of /proc/sys/kernel/perf_event_paranoid when
	// Kind is ErrPerfPermission ("" when unreadable).
	Paranoid string
}

// Error starts with "not supported" or "permission denied" for the two
// kinds that mean "this event cannot be counted here", so the message can go
// into a counter's Unsupported field as it is.
func (e *PerfError) Error() string {
	switch e.Kind {
	case ErrPerfNotSupported:
		return fmt.Sprintf("not supported (%s)", errnoName(e.Errno))
	case ErrPerfPermission:
		p := e.Paranoid
		if p == "" {
			p = "unknown"
		}
		return fmt.Sprintf("permission denied (%s, kernel.perf_event_paranoid=%s: %s)", errnoName(e.Errno), p, paranoidHint(p))
	}
	return fmt.Sprintf("perf_event_open: %v", e.Errno)
}

// Unwrap lets errors.Is match both the kind and the errno.
func (e *PerfError) Unwrap() []error {
	if e.Kind == nil {
		return []error{e.Errno}
	}
	return []error{e.Kind, e.Errno}
}

// paranoidHint says what a perf_event_paranoid level forbids to a process
// without CAP_PERFMON (Documentation/admin-guide/perf-security.rst; 3 and
// above is the Debian/Android patch that forbids everything).
func paranoidHint(p string) string {
	switch strings.TrimSpace(p) {
	case "-1", "0":
		return "raw tracepoint data and some kernel data need CAP_PERFMON"
	case "1":
		return "CPU-wide counting needs CAP_PERFMON or root"
	case "2":
		return "only user-space counting of own processes without CAP_PERFMON; count with :u or as root"
	case "unknown":
		return "the limit could not be read"
	}
	return "perf_event_open is disabled for processes without CAP_PERFMON"
}

// PerfValues is what one read of a perf fd returns.
type PerfValues struct {
	Enabled uint64 // time_enabled, ns (0 without PERF_FORMAT_TOTAL_TIME_ENABLED)
	Running uint64 // time_running, ns
	// Values and IDs hold one entry per event: the fd's own without
	// PERF_FORMAT_GROUP, the leader's and then its members' in the order
	// they were opened with it. IDs is empty without PERF_FORMAT_ID.
	Values []uint64
	IDs    []uint64
}

// DecodePerfRead decodes the bytes read from a perf fd opened with format.
// The kernel lays a group read out as {nr, time_enabled, time_running,
// {value, id}[nr]} and a single read as {value, time_enabled, time_running,
// id}, each field present only when its format bit is set.
func DecodePerfRead(b []byte, format uint64) (PerfValues, error) {
	var v PerfValues
	off := 0
	short := fmt.Errorf("perf read: %d bytes is too short for read_format %#x", len(b), format)
	next := func(dst *uint64) bool {
		if off+8 > len(b) {
			return false
		}
		*dst = binary.NativeEndian.Uint64(b[off:])
		off += 8
		return true
	}
	times := func() bool {
		if format&PerfFormatTotalTimeEnabled != 0 && !next(&v.Enabled) {
			return false
		}
		if format&PerfFormatTotalTimeRunning != 0 && !next(&v.Running) {
			return false
		}
		return true
	}
	value := func() bool {
		var x uint64
		if !next(&x) {
			return false
		}
		v.Values = append(v.Values, x)
		return true
	}
	id := func() bool {
		if format&PerfFormatID == 0 {
			return true
		}
		var x uint64
		if !next(&x) {
			return false
		}
		v.IDs = append(v.IDs, x)
		return true
	}
	if format&PerfFormatGroup == 0 {
		if !value() || !times() || !id() {
			return PerfValues{}, short
		}
		return v, nil
	}
	var n uint64
	if !next(&n) {
		return PerfValues{}, short
	}
	if n > uint64(len(b)/8) {
		return PerfValues{}, fmt.Errorf("perf read: group of %d events in %d bytes", n, len(b))
	}
	if !times() {
		return PerfValues{}, short
	}
	for i := uint64(0); i < n; i++ {
		if !value() || !id() {
			return PerfValues{}, short
		}
	}
	return v, nil
}
