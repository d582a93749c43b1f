package workload

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"

	"github.com/kdelta/kdelta/internal/sys"
)

// WorkerArg is the hidden first argument that makes the kdelta binary run
// as a workload's helper process.
const WorkerArg = "__kdelta_worker"

// A WorkerFunc is the body of a helper process: the C references fork, Go
// re-executes itself. files are the descriptors the starter passed, in
// order (they arrive as fds 3, 4, ...).
type WorkerFunc func(args []string, files []*os.File) error

var workers = map[string]WorkerFunc{}

// RegisterWorker makes role available to StartWorker.
func RegisterWorker(role string, f WorkerFunc) {
	if _, dup := workers[role]; dup {
		panic("worker registered twice: " + role)
	}
	workers[role] = f
}

// StartWorker re-executes the kdelta binary as helper process role, in the
// caller's process group, from the process's spawner thread, with
// PR_SET_PDEATHSIG so it dies with the caller. files become fds 3, 4, ...
// in the worker.
func StartWorker(role string, args []string, files []*os.File) (*exec.Cmd, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("start worker %s: %w", role, err)
	}
	argv := append([]string{WorkerArg, role, strconv.Itoa(len(files))}, args...)
	cmd := exec.Command(exe, argv...)
	cmd.ExtraFiles = files
	cmd.Stderr = os.Stderr
	if err := sys.DefaultSpawner().Start(cmd, sys.SpawnOptions{}); err != nil {
		return nil, fmt.Errorf("start worker %s: %w", role, err)
	}
	return cmd, nil
}

// WorkerMain runs the helper named by args (the arguments after WorkerArg)
// and returns the process exit status.
func WorkerMain(args []string) int {
	if len(args) < 2 {
		fmt.Fprintln(os.Stderr, "kdelta worker: missing role")
		return 2
	}
	f, ok := workers[args[0]]
	if !ok {
		fmt.Fprintf(os.Stderr, "kdelta worker: unknown role %q\n", args[0])
		return 2
	}
	n, err := strconv.Atoi(args[1])
	if err != nil || n < 0 {
		fmt.Fprintf(os.Stderr, "kdelta worker %s: bad file count %q\n", args[0], args[1])
		return 2
	}
	files := make([]*os.File, n)
	for i := range files {
		files[i] = os.NewFile(uintptr(3+i), "fd"+strconv.Itoa(3+i))
	}
	if err := f(args[2:], files); err != nil {
		fmt.Fprintf(os.Stderr, "kdelta worker %s: %v\n", args[0], err)
		return 1
	}
	return 0
}
