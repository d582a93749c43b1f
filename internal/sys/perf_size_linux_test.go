package sys

import (
	"testing"
	"unsafe"
)

// TestPerfAttrSizeIsTheStructs: the size PerfEventOpen tells the kernel is
// the size of the struct it passes. A larger one (PERF_ATTR_SIZE_VER8
// with x/sys/unix's VER7 struct) made the kernel read 8 bytes past it,
// and a 6.1 kernel, whose struct ends there, refused every event with
// E2BIG when they were not zero: no counter in a kdelta vm guest of
// Debian 12's kernel.
func TestPerfAttrSizeIsTheStructs(t *testing.T) {
	attr := PerfEventAttr{Type: PerfTypeSoftware, Config: PerfCountSWTaskClock, Bits: PerfBitDisabled}
	fd, err := PerfEventOpen(&attr, 0, -1, -1, 0)
	if err == nil {
		CloseFd(fd)
	}
	if uintptr(attr.Size) != unsafe.Sizeof(attr) {
		t.Errorf("attr.Size %d, the struct is %d bytes", attr.Size, unsafe.Sizeof(attr))
	}
}
