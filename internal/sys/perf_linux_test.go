package sys

import (
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/kdelta/kdelta/internal/testenv"
)

func words(w ...uint64) []byte {
	b := make([]byte, 8*len(w))
	for i, x := range w {
		binary.NativeEndian.PutUint64(b[8*i:], x)
	}
	return b
}

func TestDecodePerfRead(t *testing.T) {
	const te, tr, id, group = PerfFormatTotalTimeEnabled, PerfFormatTotalTimeRunning, PerfFormatID, PerfFormatGroup
	for _, tc := range []struct {
		name   string
		format uint64
		b      []byte
		want   PerfValues
		err    string
	}{
		{"plain", 0, words(42), PerfValues{Values: []uint64{42}}, ""},
		// A single event: value first, then the times, then the id.
		{"single", te | tr | id, words(42, 1000, 500, 7), PerfValues{Enabled: 1000, Running: 500, Values: []uint64{42}, IDs: []uint64{7}}, ""},
		// A group: nr, the times, then value and id of each member.
		{"group", group | te | tr | id, words(2, 1000, 900, 5, 70, 6, 71), PerfValues{Enabled: 1000, Running: 900, Values: []uint64{5, 6}, IDs: []uint64{70, 71}}, ""},
		{"group no id", group | te, words(3, 10, 1, 2, 3), PerfValues{Enabled: 10, Values: []uint64{1, 2, 3}}, ""},
		{"short single", te | tr | id, words(42, 1000), PerfValues{}, "too short"},
		{"short group", group | id, words(2, 5, 70, 6), PerfValues{}, "too short"},
		{"huge group", group, words(1 << 40), PerfValues{}, "group of"},
		{"empty", 0, nil, PerfValues{}, "too short"},
	} {
		got, err := DecodePerfRead(tc.b, tc.format)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: err %v, want %q", tc.name, err, tc.err)
			}
			continue
		}
		if err != nil || got.Enabled != tc.want.Enabled || got.Running != tc.want.Running ||
			!equal(got.Values, tc.want.Values) || !equal(got.IDs, tc.want.IDs) {
			t.Errorf("%s: %+v, %v; want %+v", tc.name, got, err, tc.want)
		}
	}
}

func equal(a, b []uint64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestPerfEventOpenSelf counts this thread's system calls with a software
// event group: disabled at open, enabled, read, reset.
func TestPerfEventOpenSelf(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	format := uint64(PerfFormatTotalTimeEnabled | PerfFormatTotalTimeRunning | PerfFormatID | PerfFormatGroup)
	leaderAttr := PerfEventAttr{Type: PerfTypeSoftware, Config: PerfCountSWTaskClock, Read_format: format, Bits: PerfBitDisabled}
	leader, err := PerfEventOpen(&leaderAttr, 0, -1, -1, 0)
	if err != nil {
		testenv.Skipf(t, "perf_event_open: %v", err)
	}
	defer CloseFd(leader)
	if leaderAttr.Size == 0 {
		t.Error("attr size not filled in")
	}
	memberAttr := PerfEventAttr{Type: PerfTypeSoftware, Config: PerfCountSWPageFaults, Read_format: format}
	member, err := PerfEventOpen(&memberAttr, 0, -1, leader, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer CloseFd(member)
	lid, err1 := PerfID(leader)
	mid, err2 := PerfID(member)
	if err1 != nil || err2 != nil || lid == 0 || lid == mid {
		t.Fatalf("ids %d %d: %v %v", lid, mid, err1, err2)
	}

	v, err := PerfRead(leader, format, 2)
	if err != nil || v.Values[0] != 0 {
		t.Fatalf("disabled group counted: %+v %v", v, err)
	}
	if err := PerfEnable(leader, true); err != nil {
		t.Fatal(err)
	}
	// Touch fresh pages to fault, and spin a little for the clock.
	buf := make([]byte, 64<<10)
	for i := 0; i < len(buf); i += 4096 {
		buf[i] = 1
	}
	nr, _ := NullSyscall("getppid")
	for i := 0; i < 10000; i++ {
		RawNull(nr)
	}
	if err := PerfDisable(leader, true); err != nil {
		t.Fatal(err)
	}
	v, err = PerfRead(leader, format, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Values) != 2 || v.IDs[0] != lid || v.IDs[1] != mid || v.Values[0] == 0 || v.Enabled == 0 || v.Running == 0 {
		t.Errorf("group read %+v (ids %d %d)", v, lid, mid)
	}
	if err := PerfReset(leader, true); err != nil {
		t.Fatal(err)
	}
	if v, _ := PerfRead(leader, format, 2); v.Values[0] != 0 || v.Values[1] != 0 {
		t.Errorf("after reset %+v", v)
	}
}

// TestPerfEventOpenErrors: a hardware event on a machine without a PMU is
// "not supported"; a nonsense type is EINVAL or ENOENT, classified.
func TestPerfEventOpenErrors(t *testing.T) {
	attr := PerfEventAttr{Type: PerfTypeHardware, Config: PerfCountHWCPUCycles, Bits: PerfBitDisabled}
	fd, err := PerfEventOpen(&attr, 0, -1, -1, 0)
	if err == nil {
		CloseFd(fd)
		t.Log("cycles can be counted here")
	} else {
		var pe *PerfError
		if !errors.As(err, &pe) {
			t.Fatalf("error %T %v is not a *PerfError", err, err)
		}
		t.Logf("cycles: %v", err)
		if !errors.Is(err, ErrPerfNotSupported) && !errors.Is(err, ErrPerfPermission) {
			t.Errorf("cycles: %v, want not supported or permission denied", err)
		}
	}
	attr = PerfEventAttr{Type: 1 << 30, Bits: PerfBitDisabled}
	if fd, err := PerfEventOpen(&attr, 0, -1, -1, 0); err == nil {
		CloseFd(fd)
		t.Error("type 1<<30 opened")
	}
	// A process that does not exist.
	attr = PerfEventAttr{Type: PerfTypeSoftware, Config: PerfCountSWTaskClock, Bits: PerfBitDisabled}
	if _, err := PerfEventOpen(&attr, 1<<22+12345, -1, -1, 0); !errors.Is(err, unix.ESRCH) {
		t.Errorf("absent pid: %v, want ESRCH", err)
	}
}

func TestClassifyPerfErrno(t *testing.T) {
	pf := filepath.Join(t.TempDir(), "perf_event_paranoid")
	for _, tc := range []struct {
		errno    unix.Errno
		paranoid string
		kind     error
		want     string
	}{
		{unix.ENOENT, "2", ErrPerfNotSupported, "not supported (ENOENT)"},
		{unix.EOPNOTSUPP, "2", ErrPerfNotSupported, "not supported (ENOTSUP)"},
		{unix.ENODEV, "2", ErrPerfNotSupported, "not supported (ENODEV)"},
		{unix.EACCES, "2", ErrPerfPermission, "permission denied (EACCES, kernel.perf_event_paranoid=2: only user-space counting"},
		{unix.EPERM, "1", ErrPerfPermission, "permission denied (EPERM, kernel.perf_event_paranoid=1: CPU-wide counting needs"},
		{unix.EACCES, "3", ErrPerfPermission, "kernel.perf_event_paranoid=3: perf_event_open is disabled"},
		{unix.EINVAL, "2", nil, "perf_event_open: invalid argument"},
	} {
		os.WriteFile(pf, []byte(tc.paranoid+"\n"), 0o644)
		e := ClassifyPerfErrno(tc.errno, pf)
		if !strings.HasPrefix(e.Error(), tc.want) && !strings.Contains(e.Error(), tc.want) {
			t.Errorf("%v: %q, want %q", tc.errno, e.Error(), tc.want)
		}
		if tc.kind != nil && !errors.Is(e, tc.kind) || !errors.Is(e, tc.errno) {
			t.Errorf("%v: errors.Is fails: %v", tc.errno, e)
		}
		if tc.kind == nil && (errors.Is(e, ErrPerfNotSupported) || errors.Is(e, ErrPerfPermission)) {
			t.Errorf("%v classified as %v", tc.errno, e.Kind)
		}
	}
}
