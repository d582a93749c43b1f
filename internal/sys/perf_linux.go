package sys

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"unsafe"

	"golang.org/x/sys/unix"
)

// PerfEventAttr is the kernel's struct perf_event_attr, as x/sys/unix lays
// it out for this architecture.
type PerfEventAttr = unix.PerfEventAttr

// Event types (perf_event_attr.type).
const (
	PerfTypeHardware   = unix.PERF_TYPE_HARDWARE
	PerfTypeSoftware   = unix.PERF_TYPE_SOFTWARE
	PerfTypeTracepoint = unix.PERF_TYPE_TRACEPOINT
	PerfTypeHWCache    = unix.PERF_TYPE_HW_CACHE
	PerfTypeRaw        = unix.PERF_TYPE_RAW
)

// Hardware events (config of PERF_TYPE_HARDWARE).
const (
	PerfCountHWCPUCycles             = unix.PERF_COUNT_HW_CPU_CYCLES
	PerfCountHWInstructions          = unix.PERF_COUNT_HW_INSTRUCTIONS
	PerfCountHWCacheReferences       = unix.PERF_COUNT_HW_CACHE_REFERENCES
	PerfCountHWCacheMisses           = unix.PERF_COUNT_HW_CACHE_MISSES
	PerfCountHWBranchInstructions    = unix.PERF_COUNT_HW_BRANCH_INSTRUCTIONS
	PerfCountHWBranchMisses          = unix.PERF_COUNT_HW_BRANCH_MISSES
	PerfCountHWBusCycles             = unix.PERF_COUNT_HW_BUS_CYCLES
	PerfCountHWStalledCyclesFrontend = unix.PERF_COUNT_HW_STALLED_CYCLES_FRONTEND
	PerfCountHWStalledCyclesBackend  = unix.PERF_COUNT_HW_STALLED_CYCLES_BACKEND
	PerfCountHWRefCPUCycles          = unix.PERF_COUNT_HW_REF_CPU_CYCLES
)

// Hardware cache events: config is cache | op<<8 | result<<16.
const (
	PerfCountHWCacheL1D  = unix.PERF_COUNT_HW_CACHE_L1D
	PerfCountHWCacheL1I  = unix.PERF_COUNT_HW_CACHE_L1I
	PerfCountHWCacheLL   = unix.PERF_COUNT_HW_CACHE_LL
	PerfCountHWCacheDTLB = unix.PERF_COUNT_HW_CACHE_DTLB
	PerfCountHWCacheITLB = unix.PERF_COUNT_HW_CACHE_ITLB
	PerfCountHWCacheBPU  = unix.PERF_COUNT_HW_CACHE_BPU
	PerfCountHWCacheNode = unix.PERF_COUNT_HW_CACHE_NODE

	PerfCountHWCacheOpRead     = unix.PERF_COUNT_HW_CACHE_OP_READ
	PerfCountHWCacheOpWrite    = unix.PERF_COUNT_HW_CACHE_OP_WRITE
	PerfCountHWCacheOpPrefetch = unix.PERF_COUNT_HW_CACHE_OP_PREFETCH

	PerfCountHWCacheResultAccess = unix.PERF_COUNT_HW_CACHE_RESULT_ACCESS
	PerfCountHWCacheResultMiss   = unix.PERF_COUNT_HW_CACHE_RESULT_MISS
)

// Software events (config of PERF_TYPE_SOFTWARE).
const (
	PerfCountSWCPUClock        = unix.PERF_COUNT_SW_CPU_CLOCK
	PerfCountSWTaskClock       = unix.PERF_COUNT_SW_TASK_CLOCK
	PerfCountSWPageFaults      = unix.PERF_COUNT_SW_PAGE_FAULTS
	PerfCountSWContextSwitches = unix.PERF_COUNT_SW_CONTEXT_SWITCHES
	PerfCountSWCPUMigrations   = unix.PERF_COUNT_SW_CPU_MIGRATIONS
	PerfCountSWPageFaultsMin   = unix.PERF_COUNT_SW_PAGE_FAULTS_MIN
	PerfCountSWPageFaultsMaj   = unix.PERF_COUNT_SW_PAGE_FAULTS_MAJ
	PerfCountSWAlignmentFaults = unix.PERF_COUNT_SW_ALIGNMENT_FAULTS
	PerfCountSWEmulationFaults = unix.PERF_COUNT_SW_EMULATION_FAULTS
	PerfCountSWDummy           = unix.PERF_COUNT_SW_DUMMY
	// PerfCountSWCgroupSwitches (Linux 5.13) is not named by x/sys/unix.
	PerfCountSWCgroupSwitches = 11
)

// Bits of perf_event_attr's flag word.
const (
	PerfBitDisabled      = unix.PerfBitDisabled
	PerfBitInherit       = unix.PerfBitInherit
	PerfBitExcludeUser   = unix.PerfBitExcludeUser
	PerfBitExcludeKernel = unix.PerfBitExcludeKernel
	PerfBitExcludeHv     = unix.PerfBitExcludeHv
	PerfBitEnableOnExec  = unix.PerfBitEnableOnExec
)

// Read formats (perf_event_attr.read_format).
const (
	PerfFormatTotalTimeEnabled = unix.PERF_FORMAT_TOTAL_TIME_ENABLED
	PerfFormatTotalTimeRunning = unix.PERF_FORMAT_TOTAL_TIME_RUNNING
	PerfFormatID               = unix.PERF_FORMAT_ID
	PerfFormatGroup            = unix.PERF_FORMAT_GROUP
)

// PerfFlagFdCloexec makes the event's fd close-on-exec.
const PerfFlagFdCloexec = unix.PERF_FLAG_FD_CLOEXEC

func errnoName(e unix.Errno) string {
	if n := unix.ErrnoName(e); n != "" {
		return n
	}
	return e.Error()
}

// ClassifyPerfErrno turns perf_event_open's errno into a PerfError. ENOENT,
// EOPNOTSUPP and ENODEV mean the event does not exist here; EACCES and
// EPERM mean it is forbidden, and the message names perf_event_paranoid.
// The paranoid value is read from paranoidPath (the real file when empty).
func ClassifyPerfErrno(errno unix.Errno, paranoidPath string) *PerfError {
	e := &PerfError{Errno: errno}
	switch errno {
	case unix.ENOENT, unix.EOPNOTSUPP, unix.ENODEV:
		e.Kind = ErrPerfNotSupported
	case unix.EACCES, unix.EPERM:
		e.Kind = ErrPerfPermission
		if paranoidPath == "" {
			paranoidPath = "/proc/sys/kernel/perf_event_paranoid"
		}
		if b, err := os.ReadFile(paranoidPath); err == nil {
			e.Paranoid = strings.TrimSpace(string(b))
		}
	}
	return e
}

// PerfEventOpen calls perf_event_open(2). It fills attr.Size when zero,
// with the size of the struct it passes (x/sys/unix's ends at sig_data,
// PERF_ATTR_SIZE_VER7: a larger size makes the kernel read past it, which
// a kernel older than 6.3, whose struct is that long, refuses with E2BIG
// when the bytes beyond are not zero), and always asks for a
// close-on-exec fd. A failure is a *PerfError.
func PerfEventOpen(attr *PerfEventAttr, pid, cpu, groupFd, flags int) (int, error) {
	if attr.Size == 0 {
		attr.Size = uint32(unsafe.Sizeof(*attr))
	}
	for {
		fd, err := unix.PerfEventOpen(attr, pid, cpu, groupFd, flags|unix.PERF_FLAG_FD_CLOEXEC)
		if err == nil {
			return fd, nil
		}
		var errno unix.Errno
		if errors.As(err, &errno) {
			if errno == unix.EINTR {
				continue
			}
			return -1, ClassifyPerfErrno(errno, "")
		}
		return -1, err
	}
}

func perfIoctl(fd int, req uintptr, arg uintptr) error {
	_, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), req, arg)
	if e != 0 {
		return e
	}
	return nil
}

func groupArg(group bool) uintptr {
	if group {
		return unix.PERF_IOC_FLAG_GROUP
	}
	return 0
}

// PerfEnable starts counting on fd, and on its whole group when group is
// set (fd must then be the leader).
func PerfEnable(fd int, group bool) error {
	if err := perfIoctl(fd, unix.PERF_EVENT_IOC_ENABLE, groupArg(group)); err != nil {
		return fmt.Errorf("perf enable fd %d: %w", fd, err)
	}
	return nil
}

// PerfDisable stops counting on fd (and its group).
func PerfDisable(fd int, group bool) error {
	if err := perfIoctl(fd, unix.PERF_EVENT_IOC_DISABLE, groupArg(group)); err != nil {
		return fmt.Errorf("perf disable fd %d: %w", fd, err)
	}
	return nil
}

// PerfReset zeroes fd's count (and its group's).
func PerfReset(fd int, group bool) error {
	if err := perfIoctl(fd, unix.PERF_EVENT_IOC_RESET, groupArg(group)); err != nil {
		return fmt.Errorf("perf reset fd %d: %w", fd, err)
	}
	return nil
}

// PerfID returns the kernel's id of the event behind fd, as PERF_FORMAT_ID
// reports it.
func PerfID(fd int) (uint64, error) {
	var id uint64
	if err := perfIoctlPtr(fd, unix.PERF_EVENT_IOC_ID, &id); err != nil {
		return 0, fmt.Errorf("perf id fd %d: %w", fd, err)
	}
	return id, nil
}

// PerfRead reads the counts of fd, laid out by format (the read_format it
// was opened with); members is the group's size with PERF_FORMAT_GROUP.
func PerfRead(fd int, format uint64, members int) (PerfValues, error) {
	n := 1
	if format&PerfFormatGroup != 0 {
		n = members
	}
	words := 1 + 2 + 2*n // upper bound: nr, enabled, running, value+id each
	buf := make([]byte, 8*words)
	var got int
	for {
		r, err := unix.Read(fd, buf)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return PerfValues{}, fmt.Errorf("read perf fd %d: %w", fd, err)
		}
		got = r
		break
	}
	return DecodePerfRead(buf[:got], format)
}

func perfIoctlPtr(fd int, req uintptr, p *uint64) error {
	_, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), req, uintptr(unsafe.Pointer(p)))
	if e != 0 {
		return e
	}
	return nil
}

// CloseFd closes a perf fd (or any fd), returning the error.
func CloseFd(fd int) error { return unix.Close(fd) }
