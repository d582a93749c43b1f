package sys

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// rawThreadProbe is what the test thread reports.
type rawThreadProbe struct {
	rfd, wfd int
	tid      int
	got      byte
	e        unix.Errno
}

//go:nosplit
//go:norace
func rawThreadProbeBody(p unsafe.Pointer) {
	a := (*rawThreadProbe)(p)
	r, _ := rawsys6(unix.SYS_GETTID, 0, 0, 0, 0, 0, 0)
	a.tid = int(r)
	var b [1]byte
	if _, e := RawReadN(a.rfd, &b[0], 1); e != 0 {
		a.e = e
		return
	}
	a.got = b[0] + 1
	a.e = RawWriteN(a.wfd, &a.got, 1)
}

// TestRawThread starts a raw thread and checks that it is a thread of
// this process with every signal blocked, that it runs its body (it
// answers a byte with the next one), and that Join returns once it has
// exited. It runs natively and, in CI, on arm64, ppc64le and s390x under
// qemu-user, which is how the other trampolines are tried.
func TestRawThread(t *testing.T) {
	in, toThread, err := Pipe()
	if err != nil {
		t.Fatal(err)
	}
	fromThread, out, err := Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		for _, fd := range []int{in, toThread, fromThread, out} {
			Close(fd)
		}
	}()
	a := &rawThreadProbe{rfd: in, wfd: out}
	th, err := StartRawThread(rawThreadProbeBody, unsafe.Pointer(a))
	if err != nil {
		t.Fatal(err)
	}
	if th.Tid() <= 0 || th.Tid() == os.Getpid() {
		t.Fatalf("raw thread id %d (process %d)", th.Tid(), os.Getpid())
	}
	// Under qemu-user the task is qemu's host thread, with qemu's mask.
	emulated := isQemuUser()
	status, err := os.ReadFile(fmt.Sprintf("/proc/self/task/%d/status", th.Tid()))
	switch {
	case err != nil:
		t.Errorf("raw thread %d is not a task of this process: %v", th.Tid(), err)
	case !emulated:
		var blocked string
		for _, l := range strings.Split(string(status), "\n") {
			if v, ok := strings.CutPrefix(l, "SigBlk:"); ok {
				blocked = strings.TrimSpace(v)
			}
		}
		// SIGKILL and SIGSTOP cannot be blocked; the mask shows the rest.
		if blocked != "fffffffffffbfeff" && blocked != "fffffffefffbfeff" {
			t.Errorf("raw thread's blocked signals %q, want all", blocked)
		}
	}
	if _, err := unix.Write(toThread, []byte{41}); err != nil {
		t.Fatal(err)
	}
	var b [1]byte
	if _, err := unix.Read(fromThread, b[:]); err != nil {
		t.Fatal(err)
	}
	if err := th.Join(); err != nil {
		t.Fatal(err)
	}
	if b[0] != 42 || a.e != 0 || a.tid != th.Tid() {
		t.Errorf("raw thread answered %d (errno %v, tid %d of %d), want 42", b[0], a.e, a.tid, th.Tid())
	}
	// The kernel clears the tid word on the way out, just before it
	// releases the task, so the task may outlive Join by a moment.
	gone := false
	for range 100 {
		if _, err := os.Stat(fmt.Sprintf("/proc/self/task/%d", th.Tid())); err != nil {
			gone = true
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if !gone && !emulated {
		t.Errorf("raw thread %d still a task 1 s after Join", th.Tid())
	}
	if err := th.Join(); err != nil {
		t.Errorf("second Join: %v", err)
	}
}

// isQemuUser says the test runs emulated under qemu-user, whose host
// process keeps its own name (qemu emulates /proc/self/exe, not comm).
func isQemuUser() bool {
	comm, _ := os.ReadFile("/proc/self/comm")
	return strings.HasPrefix(string(comm), "qemu-")
}
