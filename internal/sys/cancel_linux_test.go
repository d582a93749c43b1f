package sys

import (
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// cancelProbe is what the cancel-word thread reports: the word seen
// inside each bracket and after it, and the value Enter returned.
type cancelProbe struct {
	w                   CancelWord
	inside, after, prev [3]uint32
}

//go:nosplit
//go:norace
func cancelProbeBody(p unsafe.Pointer) {
	a := (*cancelProbe)(p)
	for i := range a.inside {
		old := a.w.Enter()
		a.prev[i] = old
		a.inside[i] = a.w.handling
		a.w.Leave(old)
		a.after[i] = a.w.handling
		// The third bracket starts with the bit already set, as in a
		// thread that asked for asynchronous cancellation itself:
		// Leave must then keep it.
		if i == 1 {
			a.w.handling |= cancelTypeAsync
		}
	}
}

// TestRawThreadCancelWord runs glibc's cancellation bracket on a raw
// thread, where the compare-and-swap must be the assembly one (natively
// and, in CI, under qemu-user on arm64, ppc64le and s390x, with the other
// RawThread tests): the bit is set inside the bracket, cleared after it
// unless it was set before, and a word without Toggle is never touched.
func TestRawThreadCancelWord(t *testing.T) {
	for _, toggle := range []bool{true, false} {
		a := &cancelProbe{w: CancelWord{handling: 0x100, Toggle: toggle}}
		th, err := StartRawThread(cancelProbeBody, unsafe.Pointer(a))
		if err != nil {
			t.Fatal(err)
		}
		if err := th.Join(); err != nil {
			t.Fatal(err)
		}
		want := cancelProbe{inside: [3]uint32{0x102, 0x102, 0x102}, after: [3]uint32{0x100, 0x100, 0x102}, prev: [3]uint32{0x100, 0x100, 0x102}}
		if !toggle {
			want = cancelProbe{inside: [3]uint32{0x100, 0x100, 0x102}, after: [3]uint32{0x100, 0x100, 0x102}}
		}
		if a.inside != want.inside || a.after != want.after || a.prev != want.prev {
			t.Errorf("Toggle %v: word inside %#x, after %#x, Enter returned %#x; want %#x, %#x, %#x",
				toggle, a.inside, a.after, a.prev, want.inside, want.after, want.prev)
		}
	}
	// rawCas32 itself: a swap that finds another value fails and leaves it.
	var v uint32 = 7
	if rawCas32(&v, 6, 9) || v != 7 || !rawCas32(&v, 7, 9) || v != 9 {
		t.Errorf("rawCas32: %d", v)
	}
}

// BenchmarkCancelWord times read(fd, &b, 0) on a pipe, which enters the
// kernel and returns at once, bare and inside a toggling CancelWord, in
// alternating blocks of 1000 calls (so that a change of the machine's
// speed falls on both alike), and reports both and their difference:
// what the bracket adds per call. bench/cancel.sh sets it beside what
// glibc's read() adds to syscall(2) in a multi-threaded C program
// (bench/cancel/cancel.c, timed the same way).
func BenchmarkCancelWord(b *testing.B) {
	r, w, err := Pipe()
	if err != nil {
		b.Fatal(err)
	}
	defer Close(r)
	defer Close(w)
	var buf [1]byte
	block := func(cw *CancelWord) time.Duration {
		t0 := time.Now()
		for range 1000 {
			c := cw.Enter()
			_, e := rawsys6(unix.SYS_READ, uintptr(r), uintptr(unsafe.Pointer(&buf[0])), 0, 0, 0, 0)
			cw.Leave(c)
			if e != 0 {
				b.Fatal(unix.Errno(e))
			}
		}
		return time.Since(t0)
	}
	bare, toggle := &CancelWord{}, &CancelWord{Toggle: true}
	var tb, tt time.Duration
	blocks := 0
	for b.Loop() {
		tb += block(bare)
		tt += block(toggle)
		blocks++
	}
	n := float64(blocks * 1000)
	b.ReportMetric(float64(tb.Nanoseconds())/n, "bare-ns/call")
	b.ReportMetric(float64(tt.Nanoseconds())/n, "toggle-ns/call")
	b.ReportMetric(float64((tt-tb).Nanoseconds())/n, "added-ns/call")
}
