package counter

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"syscall"
	"testing"

	"github.com/kdelta/kdelta/internal/sys"
)

// The test binary doubles as the processes the counters are attached to:
// with helperEnv set, TestMain runs one of the helper modes below instead
// of the tests.
const helperEnv = "KDELTA_COUNTER_HELPER"

func TestMain(m *testing.M) {
	if mode := os.Getenv(helperEnv); mode != "" {
		os.Exit(helperMain(mode))
	}
	os.Exit(m.Run())
}

// helperReport is what the ping-pong helper prints on stdout.
type helperReport struct {
	ThreadsAtGo    []int `json:"threads_at_go"`
	ThreadsCreated int   `json:"threads_created"`
	Rounds         int   `json:"rounds"`
	ChildSyscalls  int   `json:"child_syscalls"`
}

func helperMain(mode string) int {
	fail := func(err error) int {
		fmt.Fprintln(os.Stderr, "helper:", err)
		return 1
	}
	switch mode {
	case "funclatency":
		return funcLatencyHelper()
	case "syscalls":
		// A grandchild: N getppid calls, nothing else.
		n, _ := strconv.Atoi(os.Getenv("N"))
		nr, _ := sys.NullSyscall("getppid")
		for i := 0; i < n; i++ {
			sys.RawNull(nr)
		}
		return 0
	case "pingpong":
		n, _ := strconv.Atoi(os.Getenv("N"))
		m, _ := strconv.Atoi(os.Getenv("M"))
		rep, err := pingPong(n, m)
		if err != nil {
			return fail(err)
		}
		json.NewEncoder(os.Stdout).Encode(rep)
		return 0
	case "exec":
		// Wait for the go-ahead, then run the command given in ARGV as a
		// child process and wait for it, as a shim around a command would.
		if err := awaitGo(); err != nil {
			return fail(err)
		}
		var argv []string
		if err := json.Unmarshal([]byte(os.Getenv("ARGV")), &argv); err != nil {
			return fail(err)
		}
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Stderr = os.Stderr
		if err := cmd.Run(); err != nil {
			return fail(err)
		}
		return 0
	case "execve":
		// Wait for the go-ahead, then become the command: counters opened
		// with EnableOnExec start here.
		if err := awaitGo(); err != nil {
			return fail(err)
		}
		var argv []string
		if err := json.Unmarshal([]byte(os.Getenv("ARGV")), &argv); err != nil {
			return fail(err)
		}
		return fail(syscall.Exec(argv[0], argv, os.Environ()))
	case "self":
		// Count this process itself (run as an unprivileged user by the
		// permission test) and print the counters.
		evs, err := ParseEvents(os.Getenv("EVENTS"))
		if err != nil {
			return fail(err)
		}
		set, aerr := Attach(os.Getpid(), evs, Options{})
		if set == nil {
			return fail(aerr)
		}
		nr, _ := sys.NullSyscall("getppid")
		for i := 0; i < 1000; i++ {
			sys.RawNull(nr)
		}
		out := struct {
			Counters any    `json:"counters"`
			Err      string `json:"err,omitempty"`
		}{set.Read(), ""}
		if aerr != nil {
			out.Err = aerr.Error()
		}
		set.Close()
		json.NewEncoder(os.Stdout).Encode(out)
		return 0
	}
	return fail(fmt.Errorf("unknown mode %q", mode))
}

// awaitGo tells the test on fd 4 that the helper is set up and waits for
// its go-ahead byte on fd 3.
func awaitGo() error {
	ready := os.NewFile(4, "ready")
	goR := os.NewFile(3, "go")
	if _, err := ready.Write([]byte{1}); err != nil {
		return fmt.Errorf("ready: %w", err)
	}
	ready.Close()
	b := make([]byte, 1)
	if _, err := goR.Read(b); err != nil {
		return fmt.Errorf("go-ahead: %w", err)
	}
	goR.Close()
	return nil
}

// pingPong does, after the go-ahead, n round trips over two pipes between
// two locked threads, with more threads blocked meanwhile than the process
// had at the go-ahead (so the Go runtime must create threads after the
// counters were attached), then runs a grandchild doing m getppid calls
// (a process created after attach).
func pingPong(n, m int) (helperReport, error) {
	var rep helperReport
	runtime.LockOSThread()
	// Raw blocking reads keep their P: leave enough Ps for every thread
	// that blocks (see the sys package comment).
	runtime.GOMAXPROCS(64)
	if err := awaitGo(); err != nil {
		return rep, err
	}
	rep.ThreadsAtGo, _ = tasks(os.Getpid())

	// Park one more locked thread than there were threads at the go-ahead
	// in a blocking read: the runtime has to clone new ones.
	holdR, holdW, err := sys.Pipe()
	if err != nil {
		return rep, err
	}
	parked := len(rep.ThreadsAtGo) + 1
	started := make(chan struct{}, parked)
	for i := 0; i < parked; i++ {
		go func() {
			runtime.LockOSThread()
			started <- struct{}{}
			b := make([]byte, 1)
			syscall.Read(holdR, b)
		}()
	}
	for i := 0; i < parked; i++ {
		<-started
	}

	p1r, p1w, err := sys.Pipe()
	if err != nil {
		return rep, err
	}
	p2r, p2w, err := sys.Pipe()
	if err != nil {
		return rep, err
	}
	done := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		b := make([]byte, 1)
		for i := 0; i < n; i++ {
			if err := sys.RawReadFull(p1r, b); err != nil {
				done <- err
				return
			}
			if err := sys.RawWriteFull(p2w, b); err != nil {
				done <- err
				return
			}
		}
		done <- nil
	}()
	b := []byte{'x'}
	for i := 0; i < n; i++ {
		if err := sys.RawWriteFull(p1w, b); err != nil {
			return rep, err
		}
		if err := sys.RawReadFull(p2r, b); err != nil {
			return rep, err
		}
	}
	if err := <-done; err != nil {
		return rep, err
	}
	rep.Rounds = n
	after, _ := tasks(os.Getpid())
	old := map[int]bool{}
	for _, t := range rep.ThreadsAtGo {
		old[t] = true
	}
	for _, t := range after {
		if !old[t] {
			rep.ThreadsCreated++
		}
	}

	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), helperEnv+"=syscalls", "N="+strconv.Itoa(m))
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		return rep, fmt.Errorf("grandchild: %w", err)
	}
	rep.ChildSyscalls = m
	syscall.Write(holdW, make([]byte, parked))
	return rep, nil
}

// startHelper starts the test binary in helper mode with env added, and
// returns it once it is ready for the go-ahead, with the function that
// gives the go-ahead.
func startHelper(t *testing.T, mode string, stdout io.Writer, env ...string) (*exec.Cmd, func()) {
	t.Helper()
	goR, goW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	readyR, readyW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), helperEnv+"="+mode, "GODEBUG=asyncpreemptoff=1")
	cmd.Env = append(cmd.Env, env...)
	cmd.ExtraFiles = []*os.File{goR, readyW}
	cmd.Stdout = stdout
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	goR.Close()
	readyW.Close()
	b := make([]byte, 1)
	if _, err := readyR.Read(b); err != nil {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("helper %s never got ready: %v", mode, err)
	}
	readyR.Close()
	t.Cleanup(func() {
		goW.Close()
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	return cmd, func() {
		goW.Write([]byte{1})
		goW.Close()
	}
}
