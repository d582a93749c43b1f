package cli_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestEndlessInput gives show, import, compare and vm --kernel a file
// that never ends (/dev/zero): each stops at its kind of input's limit
// with one line saying the limit, exit 2, its memory bounded by the limit
// rather than growing until the machine runs out (issue 35 point 5).
func TestEndlessInput(t *testing.T) {
	bin := kdeltaBinary(t)
	dir := t.TempDir()
	for _, tc := range []struct {
		args  []string
		limit int64 // bytes
		say   string
	}{
		{[]string{"show", "/dev/zero"}, 512 << 20, "more than 512 MiB, the most kdelta reads of a result set"},
		{[]string{"compare", "/dev/zero", "/dev/zero"}, 512 << 20, "more than 512 MiB, the most kdelta reads of a result set or a file to import"},
		{[]string{"import", "/dev/zero"}, 256 << 20, "more than 256 MiB, the most kdelta reads of a file to import"},
		{[]string{"vm", "--kernel", "/dev/zero", "--", "run", "syscall"}, 512 << 20, "more than 512 MiB, the most kdelta reads of a kernel image"},
	} {
		name := strings.Join(tc.args, " ")
		cmd := exec.Command(bin, tc.args...)
		cmd.Env = append(os.Environ(), "XDG_DATA_HOME="+filepath.Join(dir, "data"), "XDG_STATE_HOME="+filepath.Join(dir, "state"), "XDG_CACHE_HOME="+filepath.Join(dir, "cache"))
		var stderr strings.Builder
		cmd.Stderr = &stderr
		err := cmd.Run()
		code := cmd.ProcessState.ExitCode()
		if err != nil && code < 0 {
			t.Fatalf("%s: %v", name, err)
		}
		lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
		last := lines[len(lines)-1]
		if code != 2 || !strings.HasPrefix(last, "kdelta: ") || !strings.Contains(last, "/dev/zero") || !strings.Contains(last, tc.say) {
			t.Errorf("%s: exit %d, stderr:\n%s\nwant exit 2 and a line naming /dev/zero and %q", name, code, stderr.String(), tc.say)
		}
		rss := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss << 10
		if rss > tc.limit+tc.limit/2 {
			t.Errorf("%s: max RSS %d MiB, more than one and a half times the %d MiB limit", name, rss>>20, tc.limit>>20)
		}
		t.Logf("%s: exit %d, max RSS %d MiB: %s", name, code, rss>>20, last)
	}
}

// TestInterruptedRead interrupts show, import, compare and the profile
// commands while they wait
// on a FIFO that no one writes (the open itself blocks): SIGINT or SIGTERM
// ends them with exit 130 and one line naming the file, where they used
// to wait for ever with both signals caught.
func TestInterruptedRead(t *testing.T) {
	bin := kdeltaBinary(t)
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		sig  syscall.Signal
	}{
		{[]string{"show", fifo}, syscall.SIGINT},
		{[]string{"import", fifo}, syscall.SIGTERM},
		{[]string{"compare", fifo, fifo}, syscall.SIGINT},
		// The profile commands read through the same bounded,
		// cancellable reader (issue 35).
		{[]string{"profile", "show", fifo}, syscall.SIGINT},
		{[]string{"profile", "diff", fifo, fifo}, syscall.SIGINT},
		{[]string{"profile", "annotate", fifo, "main"}, syscall.SIGINT},
		{[]string{"profile", "pprof", fifo, "-o", filepath.Join(dir, "out.pb.gz")}, syscall.SIGTERM},
	} {
		name := strings.Join(tc.args, " ")
		cmd := exec.Command(bin, tc.args...)
		cmd.Env = append(os.Environ(), "XDG_DATA_HOME="+filepath.Join(dir, "data"), "XDG_STATE_HOME="+filepath.Join(dir, "state"))
		var stderr strings.Builder
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		waitCaught(t, cmd.Process.Pid, tc.sig)
		if err := cmd.Process.Signal(tc.sig); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			cmd.Process.Kill()
			<-done
			t.Errorf("%s: still waiting on the FIFO 30 s after %v", name, tc.sig)
			continue
		}
		out := strings.TrimSpace(stderr.String())
		if code := cmd.ProcessState.ExitCode(); code != 130 || strings.Count(out, "\n") != 0 || !strings.Contains(out, fifo+": reading stopped") {
			t.Errorf("%s: exit %d after %v, stderr:\n%s\nwant exit 130 and one line naming the FIFO", name, code, tc.sig, out)
		}
	}
}

// waitCaught waits until process pid catches sig (its SigCgt mask in
// /proc/PID/status), so the signal sent next is kdelta's to handle, not
// the default action of a process still starting.
func waitCaught(t *testing.T, pid int, sig syscall.Signal) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
		if err != nil {
			t.Fatalf("process %d: %v", pid, err)
		}
		for _, l := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(l, "SigCgt:"); ok {
				mask, err := strconv.ParseUint(strings.TrimSpace(v), 16, 64)
				if err == nil && mask&(1<<(uint(sig)-1)) != 0 {
					// Caught: give the command a moment to reach its read.
					time.Sleep(200 * time.Millisecond)
					return
				}
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("process %d never caught %v", pid, sig)
}
