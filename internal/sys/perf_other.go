//go:build !linux

package sys

import "syscall"

// PerfEventAttr is the start of Linux's struct perf_event_attr, the
// fields kdelta fills: events are described here but never opened.
type PerfEventAttr struct {
	Type        uint32
	Size        uint32
	Config      uint64
	Sample      uint64
	Sample_type uint64
	Read_format uint64
	Bits        uint64
}

// Event types (perf_event_attr.type), with Linux's numbers.
const (
	PerfTypeHardware   = 0x0
	PerfTypeSoftware   = 0x1
	PerfTypeTracepoint = 0x2
	PerfTypeHWCache    = 0x3
	PerfTypeRaw        = 0x4
)

// Hardware events (config of PERF_TYPE_HARDWARE).
const (
	PerfCountHWCPUCycles             = 0x0
	PerfCountHWInstructions          = 0x1
	PerfCountHWCacheReferences       = 0x2
	PerfCountHWCacheMisses           = 0x3
	PerfCountHWBranchInstructions    = 0x4
	PerfCountHWBranchMisses          = 0x5
	PerfCountHWBusCycles             = 0x6
	PerfCountHWStalledCyclesFrontend = 0x7
	PerfCountHWStalledCyclesBackend  = 0x8
	PerfCountHWRefCPUCycles          = 0x9
)

// Hardware cache events: config is cache | op<<8 | result<<16.
const (
	PerfCountHWCacheL1D  = 0x0
	PerfCountHWCacheL1I  = 0x1
	PerfCountHWCacheLL   = 0x2
	PerfCountHWCacheDTLB = 0x3
	PerfCountHWCacheITLB = 0x4
	PerfCountHWCacheBPU  = 0x5
	PerfCountHWCacheNode = 0x6

	PerfCountHWCacheOpRead     = 0x0
	PerfCountHWCacheOpWrite    = 0x1
	PerfCountHWCacheOpPrefetch = 0x2

	PerfCountHWCacheResultAccess = 0x0
	PerfCountHWCacheResultMiss   = 0x1
)

// Software events (config of PERF_TYPE_SOFTWARE).
const (
	PerfCountSWCPUClock        = 0x0
	PerfCountSWTaskClock       = 0x1
	PerfCountSWPageFaults      = 0x2
	PerfCountSWContextSwitches = 0x3
	PerfCountSWCPUMigrations   = 0x4
	PerfCountSWPageFaultsMin   = 0x5
	PerfCountSWPageFaultsMaj   = 0x6
	PerfCountSWAlignmentFaults = 0x7
	PerfCountSWEmulationFaults = 0x8
	PerfCountSWDummy           = 0x9
	PerfCountSWCgroupSwitches  = 11
)

// Bits of perf_event_attr's flag word, as little-endian Linux lays them
// out, typed as x/sys/unix types them.
const (
	//lint:ignore SA9004 only PerfBitDisabled is uint64 in x/sys/unix too
	PerfBitDisabled      uint64 = 0x1
	PerfBitInherit              = 0x2
	PerfBitExcludeUser          = 0x10
	PerfBitExcludeKernel        = 0x20
	PerfBitExcludeHv            = 0x40
	PerfBitEnableOnExec         = 0x1000
)

// Read formats (perf_event_attr.read_format).
const (
	PerfFormatTotalTimeEnabled = 0x1
	PerfFormatTotalTimeRunning = 0x2
	PerfFormatID               = 0x4
	PerfFormatGroup            = 0x8
)

// PerfFlagFdCloexec makes the event's fd close-on-exec.
const PerfFlagFdCloexec = 0x8

func errnoName(e syscall.Errno) string { return e.Error() }

// ClassifyPerfErrno leaves errno unclassified: perf_event_open is Linux's.
func ClassifyPerfErrno(errno syscall.Errno, paranoidPath string) *PerfError {
	return &PerfError{Errno: errno}
}

// PerfEventOpen reports that perf events are Linux's.
func PerfEventOpen(attr *PerfEventAttr, pid, cpu, groupFd, flags int) (int, error) {
	return -1, ErrNotLinux
}

// PerfEnable reports that perf events are Linux's.
func PerfEnable(fd int, group bool) error { return ErrNotLinux }

// PerfDisable reports that perf events are Linux's.
func PerfDisable(fd int, group bool) error { return ErrNotLinux }

// PerfReset reports that perf events are Linux's.
func PerfReset(fd int, group bool) error { return ErrNotLinux }

// PerfID reports that perf events are Linux's.
func PerfID(fd int) (uint64, error) { return 0, ErrNotLinux }

// PerfRead reports that perf events are Linux's.
func PerfRead(fd int, format uint64, members int) (PerfValues, error) {
	return PerfValues{}, ErrNotLinux
}

// CloseFd reports that no descriptor of this package is open here.
func CloseFd(fd int) error { return ErrNotLinux }
