package sys

import (
	"os/exec"
	"runtime"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/kdelta/kdelta/internal/testenv"
)

// TestSetParentDeathSignal checks that the signal is set, on a command
// without SysProcAttr and on one whose other attributes must stay.
func TestSetParentDeathSignal(t *testing.T) {
	bare := exec.Command("true")
	SetParentDeathSignal(bare, syscall.SIGINT)
	if bare.SysProcAttr == nil || bare.SysProcAttr.Pdeathsig != syscall.SIGINT {
		t.Errorf("bare command: SysProcAttr %+v, want Pdeathsig SIGINT", bare.SysProcAttr)
	}
	grouped := exec.Command("true")
	grouped.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	SetParentDeathSignal(grouped, syscall.SIGTERM)
	if a := grouped.SysProcAttr; !a.Setpgid || a.Pdeathsig != syscall.SIGTERM {
		t.Errorf("grouped command: SysProcAttr %+v, want Setpgid and Pdeathsig SIGTERM", a)
	}
}

// TestSethostname sets the hostname in a UTS namespace of one thread's
// own, which ends with the thread, so the machine's name is untouched.
func TestSethostname(t *testing.T) {
	testenv.NeedRoot(t, "a UTS namespace")
	got := make(chan string, 1)
	errs := make(chan error, 1)
	go func() {
		// Never unlocked: the thread leaves with its namespace.
		runtime.LockOSThread()
		if err := unix.Unshare(unix.CLONE_NEWUTS); err != nil {
			errs <- err
			return
		}
		if err := Sethostname("kdelta-test-uts"); err != nil {
			errs <- err
			return
		}
		var u unix.Utsname
		if err := unix.Uname(&u); err != nil {
			errs <- err
			return
		}
		got <- unix.ByteSliceToString(u.Nodename[:])
	}()
	select {
	case err := <-errs:
		t.Fatal(err)
	case name := <-got:
		if name != "kdelta-test-uts" {
			t.Errorf("hostname in the namespace %q, want kdelta-test-uts", name)
		}
	}
}
