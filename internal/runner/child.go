package runner

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"strings"
	"syscall"

	"github.com/kdelta/kdelta/internal/sys"
	"github.com/kdelta/kdelta/internal/workload"
)

// ChildArg is the hidden first argument that makes the kdelta binary run
// one measured run of a workload (see ChildMain).
const ChildArg = "__kdelta_child"

// ProtocolVersion is the version of the child-to-parent message format.
// Messages are JSON objects, one per line, on fd 3; the parent's go-ahead
// is one byte on fd 4.
const ProtocolVersion = 1

// A job is what the parent asks the child to run, passed in the
// environment variable jobEnv.
type job struct {
	Workload string            `json:"workload"`
	Params   map[string]string `json:"params"`
	// Exec, when set, makes the child exec this command after the
	// go-ahead instead of running a workload (kdelta stat).
	Exec []string `json:"exec,omitempty"`
	// Window, when set, is the window the child opens and closes on
	// windowFD around its timed part (Options.Window).
	Window *jobWindow `json:"window,omitempty"`
}

// A jobWindow is what the child writes to open and to close its window.
type jobWindow struct {
	On  string `json:"on"`
	Off string `json:"off"`
}

// windowFD is the descriptor of the window's switch in the child.
const windowFD = 5

// open writes the window's On: the timed part starts.
func (w *jobWindow) open() error {
	if _, err := syscall.Write(windowFD, []byte(w.On)); err != nil {
		return fmt.Errorf("opening the window of the timed part (fd %d): %w", windowFD, err)
	}
	return nil
}

// close writes the window's Off: the timed part is over.
func (w *jobWindow) close() error {
	if _, err := syscall.Write(windowFD, []byte(w.Off)); err != nil {
		return fmt.Errorf("closing the window of the timed part (fd %d): %w", windowFD, err)
	}
	return nil
}

const jobEnv = "KDELTA_JOB"

// message is one line from the child.
type message struct {
	V      int              `json:"v"`
	Type   string           `json:"type"` // ready, result, skip, error
	PID    int              `json:"pid,omitempty"`
	Reason string           `json:"reason,omitempty"`
	Report *workload.Report `json:"report,omitempty"`
}

// ChildMain runs one measured run in this process, which the parent started
// with ChildArg, and returns the exit status.
func ChildMain() int {
	// The workload's Run executes on the main goroutine, locked to its
	// thread for its whole life.
	runtime.LockOSThread()
	out := os.NewFile(3, "report")
	in := os.NewFile(4, "go")
	if out == nil || in == nil {
		fmt.Fprintln(os.Stderr, "kdelta: child mode needs fds 3 and 4 (it is started by kdelta run)")
		return 2
	}
	// Keep the protocol pipes out of the workload's own helper processes.
	syscall.CloseOnExec(3)
	syscall.CloseOnExec(4)
	send := func(m message) {
		m.V = ProtocolVersion
		b, _ := json.Marshal(m)
		out.Write(append(b, '\n'))
	}
	fail := func(err error) int {
		send(message{Type: "error", Reason: err.Error()})
		return 1
	}

	// The parent gives the child PR_SET_PDEATHSIG=SIGTERM: when kdelta
	// dies, take the whole process group (helpers, external commands and
	// their children) down with this process.
	term := make(chan os.Signal, 1)
	signal.Notify(term, syscall.SIGTERM)
	go func() {
		<-term
		syscall.Kill(0, syscall.SIGKILL)
	}()

	var j job
	if err := json.Unmarshal([]byte(os.Getenv(jobEnv)), &j); err != nil {
		return fail(fmt.Errorf("bad job: %w", err))
	}
	if j.Window != nil {
		// Neither helpers nor an exec'd command may close the window.
		syscall.CloseOnExec(windowFD)
	}
	if j.Exec != nil {
		return execJob(j.Exec, send, in, j.Window)
	}
	w, ok := workload.Lookup(j.Workload)
	if !ok {
		return fail(fmt.Errorf("unknown workload %q", j.Workload))
	}
	vals, err := workload.Resolve(w, j.Params)
	if err != nil {
		return fail(err)
	}
	goByte := make([]byte, 1)
	t := workload.NewTask(vals, func() error {
		send(message{Type: "ready", PID: os.Getpid()})
		if _, err := io.ReadFull(in, goByte); err != nil {
			return fmt.Errorf("waiting for the parent's go-ahead: %w", err)
		}
		if j.Window != nil {
			return j.Window.open()
		}
		return nil
	})
	if j.Window != nil {
		t.SetEnd(j.Window.close)
	}
	describeSelf(t)
	err = w.Run(t)
	if reason, ok := workload.SkipReason(err); ok {
		send(message{Type: "skip", Reason: reason})
		return 0
	}
	if err != nil {
		// What the workload recorded before failing (a command's exit
		// status and output) travels with the error.
		send(message{Type: "error", Reason: err.Error(), Report: &t.Report})
		return 1
	}
	send(message{Type: "result", Report: &t.Report})
	return 0
}

// describeSelf records where the child runs, read from inside it, so a
// result shows that --cpus and --fifo took effect.
func describeSelf(t *workload.Task) {
	if b, err := os.ReadFile("/proc/self/status"); err == nil {
		sc := bufio.NewScanner(strings.NewReader(string(b)))
		for sc.Scan() {
			if v, ok := strings.CutPrefix(sc.Text(), "Cpus_allowed_list:"); ok {
				t.Info("cpus_allowed", strings.TrimSpace(v))
			}
		}
	}
	if p, err := sys.Scheduler(0); err == nil {
		t.Info("policy", p.String())
	}
	t.Info("gomaxprocs", fmt.Sprint(runtime.GOMAXPROCS(0)))
}

// readMessages decodes the child's messages until EOF.
func readMessages(r io.Reader, ch chan<- message, errc chan<- error) {
	defer close(ch)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 64<<20)
	for sc.Scan() {
		var m message
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			errc <- fmt.Errorf("child sent a malformed message: %w", err)
			return
		}
		if m.V != ProtocolVersion {
			errc <- fmt.Errorf("child speaks protocol %d, want %d", m.V, ProtocolVersion)
			return
		}
		ch <- m
	}
	if err := sc.Err(); err != nil && !errors.Is(err, os.ErrClosed) {
		errc <- err
	}
}

// execJob becomes the command: after the go-ahead (counters are then open
// with enable-on-exec) the child tells the parent and execs it, so the
// counts start at the command's first instruction, as perf stat's do.
func execJob(argv []string, send func(message), in *os.File, win *jobWindow) int {
	path, err := exec.LookPath(argv[0])
	if err != nil {
		send(message{Type: "error", Reason: err.Error()})
		return 127
	}
	env := os.Environ()
	clean := env[:0]
	for _, kv := range env {
		// The command gets the caller's environment, not the child's
		// runtime settings.
		if strings.HasPrefix(kv, jobEnv+"=") || kv == "GODEBUG=asyncpreemptoff=1" || kv == "GOGC=off" {
			continue
		}
		clean = append(clean, kv)
	}
	send(message{Type: "ready", PID: os.Getpid()})
	if _, err := io.ReadFull(in, make([]byte, 1)); err != nil {
		return 1
	}
	if win != nil {
		// The command's whole life is the timed part; the runner
		// closes the window when it exits.
		if err := win.open(); err != nil {
			send(message{Type: "error", Reason: err.Error()})
			return 1
		}
	}
	send(message{Type: "exec"})
	err = syscall.Exec(path, argv, clean)
	send(message{Type: "error", Reason: fmt.Sprintf("exec %s: %v", argv[0], err)})
	return 126
}

// Hidden runs the hidden mode args ask for, if any — a measured child
// (ChildArg) or a workload's helper process (workload.WorkerArg) — and
// returns its exit status. The kdelta binary, and every test binary that
// stands in for it when the runner re-executes itself, call it first.
func Hidden(args []string) (code int, ok bool) {
	if len(args) == 0 {
		return 0, false
	}
	switch args[0] {
	case ChildArg:
		return ChildMain(), true
	case workload.WorkerArg:
		return workload.WorkerMain(args[1:]), true
	}
	return 0, false
}
