package sys

import (
	"fmt"
	"golang.org/x/sys/unix"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"unsafe"
)

type leanOrders struct {
	in   []int64
	out  []int64 // shared
	code int
}

//go:nosplit
//go:norace
func leanSum(p unsafe.Pointer) int {
	o := (*leanOrders)(p)
	var s int64
	for _, v := range o.in {
		s += v
	}
	o.out[0] = s
	return o.code
}

// TestLeanFork forks lean children that read their orders from the
// arena, report through shared memory and exit with their body's code.
func TestLeanFork(t *testing.T) {
	arena, err := NewForkArena(4096)
	if err != nil {
		t.Fatal(err)
	}
	defer arena.Free()
	shared, unmap, err := SharedInt64s(1)
	if err != nil {
		t.Fatal(err)
	}
	defer unmap()
	o, err := ArenaNew[leanOrders](arena)
	if err != nil {
		t.Fatal(err)
	}
	if o.in, err = ArenaSlice[int64](arena, 3); err != nil {
		t.Fatal(err)
	}
	copy(o.in, []int64{1, 2, 39})
	o.out = shared
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := arena.Lean(); err != nil {
		t.Fatal(err)
	}
	for _, code := range []int{0, 7} {
		shared[0] = 0
		o.code = code
		pid, err := arena.Fork(leanSum, unsafe.Pointer(o), 0)
		if err != nil {
			t.Fatal(err)
		}
		err = WaitChild(pid)
		switch {
		case code == 0 && err != nil:
			t.Fatalf("child: %v", err)
		case code != 0 && (err == nil || !strings.Contains(err.Error(), "status 7")):
			t.Fatalf("child with code 7: %v", err)
		}
		if shared[0] != 42 {
			t.Fatalf("child's sum %d, want 42", shared[0])
		}
	}
	if err := arena.Unlean(); err != nil {
		t.Fatal(err)
	}
}

type leanWaiter struct {
	fd  int
	buf [1]byte
}

//go:nosplit
//go:norace
func leanWait(p unsafe.Pointer) int {
	w := (*leanWaiter)(p)
	rawsys6(unix.SYS_READ, uintptr(w.fd), uintptr(unsafe.Pointer(&w.buf[0])), 1, 0, 0, 0)
	return 0
}

// TestLeanForkLeavesHeap checks that a lean child has none of the Go
// heap: no mapping of its own holds a heap object of its parent's, and
// its anonymous resident memory is a small part of a ForkRaw child's.
func TestLeanForkLeavesHeap(t *testing.T) {
	heap := touchedHeap(1 << 20)
	arena, err := NewForkArena(4096)
	if err != nil {
		t.Fatal(err)
	}
	defer arena.Free()
	w, err := ArenaNew[leanWaiter](arena)
	if err != nil {
		t.Fatal(err)
	}
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC); err != nil {
		t.Fatal(err)
	}
	defer unix.Close(p[0])
	w.fd = p[0]
	// child forks a waiter one way, reads what the test needs of it from
	// /proc, and lets it go.
	child := func(lean bool) (rssAnonKiB int, holdsHeap bool) {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		var pid int
		var err error
		if lean {
			if err := arena.Lean(); err != nil {
				t.Fatal(err)
			}
			pid, err = arena.Fork(leanWait, unsafe.Pointer(w), 0)
			if e := arena.Unlean(); e != nil {
				t.Fatal(e)
			}
		} else {
			pid, err = ForkRaw(leanWait, unsafe.Pointer(w), 0)
		}
		if err != nil {
			t.Fatal(err)
		}
		status, err1 := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
		maps, err2 := os.ReadFile(fmt.Sprintf("/proc/%d/maps", pid))
		if _, err := unix.Write(p[1], []byte{1}); err != nil {
			t.Fatal(err)
		}
		if err := WaitChild(pid); err != nil {
			t.Fatalf("lean=%v: %v", lean, err)
		}
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		for _, line := range strings.Split(string(status), "\n") {
			if f := strings.Fields(line); len(f) == 3 && f[0] == "RssAnon:" {
				rssAnonKiB, _ = strconv.Atoi(f[1])
			}
		}
		addr := uint64(uintptr(unsafe.Pointer(&heap[len(heap)/2])))
		for _, line := range strings.Split(string(maps), "\n") {
			lo, hi, _ := strings.Cut(strings.Fields(line + " -")[0], "-")
			s, _ := strconv.ParseUint(lo, 16, 64)
			e, _ := strconv.ParseUint(hi, 16, 64)
			holdsHeap = holdsHeap || (s <= addr && addr < e)
		}
		return rssAnonKiB, holdsHeap
	}
	rawRSS, rawHeap := child(false)
	leanRSS, leanHeap := child(true)
	t.Logf("RssAnon: ForkRaw child %d KiB, lean child %d KiB", rawRSS, leanRSS)
	runtime.KeepAlive(heap)
	if !rawHeap {
		t.Fatal("the ForkRaw child has no mapping at the heap object's address: the check sees nothing")
	}
	if raceEnabled {
		// Lean leaves the memory to be copied under the race detector.
		if !leanHeap {
			t.Error("race detector: the lean child lacks the Go heap, which its atomics would need")
		}
		return
	}
	if leanHeap {
		t.Error("the lean child maps the Go heap")
	}
	if leanRSS*4 > rawRSS {
		t.Errorf("lean child's RssAnon %d KiB is over a quarter of the ForkRaw child's %d KiB", leanRSS, rawRSS)
	}
}

//go:nosplit
//go:norace
func leanNothing(p unsafe.Pointer) int { return 0 }

// BenchmarkFork times a fork, the child's exit and the reap, of a
// ForkRaw child and of a lean one, from this test process with 8 MiB of
// touched heap (a measured kdelta child has 2-4 MiB).
func BenchmarkFork(b *testing.B) {
	heap := touchedHeap(8 << 20)
	arena, err := NewForkArena(4096)
	if err != nil {
		b.Fatal(err)
	}
	defer arena.Free()
	for _, lean := range []bool{false, true} {
		name := "raw"
		if lean {
			name = "lean"
		}
		b.Run(name, func(b *testing.B) {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			if lean {
				if err := arena.Lean(); err != nil {
					b.Fatal(err)
				}
				defer arena.Unlean()
			}
			for b.Loop() {
				var pid int
				var err error
				if lean {
					pid, err = arena.Fork(leanNothing, nil, 0)
				} else {
					pid, err = ForkRaw(leanNothing, nil, 0)
				}
				if err == nil {
					err = WaitChild(pid)
				}
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	runtime.KeepAlive(heap)
}

// touchedHeap returns n bytes of Go heap, every page written, so that a
// fork copies their page table entries.
func touchedHeap(n int) []byte {
	heap := make([]byte, n)
	for i := range heap {
		heap[i] = 1
	}
	return heap
}

// TestUnleanAfterUnmap: a range Lean marked may be unmapped before Unlean
// (the runtime frees memory, a raw thread's stack goes); madvise then
// reports ENOMEM for the hole, which Unlean passes over.
func TestUnleanAfterUnmap(t *testing.T) {
	if !rawCloneAsm || raceEnabled {
		t.Skip("Lean marks nothing here")
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	mem, err := unix.Mmap(-1, 0, 3*os.Getpagesize(), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		t.Fatal(err)
	}
	arena, err := NewForkArena(4096)
	if err != nil {
		t.Fatal(err)
	}
	defer arena.Free()
	if err := arena.Lean(); err != nil {
		t.Fatal(err)
	}
	marked := false
	for _, r := range arena.lean {
		marked = marked || r[0] <= uintptr(unsafe.Pointer(&mem[0])) && uintptr(unsafe.Pointer(&mem[len(mem)-1])) < r[1]
	}
	if err := unix.Munmap(mem); err != nil {
		t.Fatal(err)
	}
	if !marked {
		t.Fatalf("Lean did not mark the test's mapping (%d ranges)", len(arena.lean))
	}
	if err := arena.Unlean(); err != nil {
		t.Errorf("Unlean after a marked range was unmapped: %v", err)
	}
}
