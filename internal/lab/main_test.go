package lab_test

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/kdelta/kdelta/internal/store"
	"github.com/kdelta/kdelta/internal/testenv"
)

// kdelta is the binary the tests run, built once for the test binary.
var kdelta string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "kdelta-lab-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	kdelta = filepath.Join(dir, "kdelta")
	// Static, as a vm job's guest /init must be.
	build := exec.Command("go", "build", "-o", kdelta, "github.com/kdelta/kdelta/cmd/kdelta")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	out, err := build.CombinedOutput()
	if err != nil {
		fmt.Fprintf(os.Stderr, "build kdelta: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// A machine is the environment of the kdelta processes of one test: its
// own data and state directories (store, knob journals) and lab.
type machine struct {
	t   *testing.T
	env []string
	dir string
}

func newMachine(t *testing.T, extra ...string) *machine {
	dir := t.TempDir()
	env := []string{"XDG_DATA_HOME=" + dir + "/data", "XDG_STATE_HOME=" + dir + "/state", "HOME=" + dir}
	// The user's cache is shared: kernels fetched, and whether KVM starts
	// a kernel on this host (a probe that costs a boot).
	if cache, err := os.UserCacheDir(); err == nil {
		env = append(env, "XDG_CACHE_HOME="+cache)
	}
	for _, e := range os.Environ() {
		if strings.HasPrefix(e, "PATH=") || strings.HasPrefix(e, "TMPDIR=") {
			env = append(env, e)
		}
	}
	return &machine{t: t, env: append(env, extra...), dir: dir}
}

// db is the path of the machine's SQLite store.
func (m *machine) db() string { return filepath.Join(m.dir, "data", "kdelta", "kdelta.db") }

// run runs kdelta to its end and returns its stdout, stderr and status.
func (m *machine) run(args ...string) (string, string, int) {
	m.t.Helper()
	cmd := exec.Command(kdelta, args...)
	cmd.Env = m.env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		m.t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

// ok runs kdelta and fails the test unless it succeeds.
func (m *machine) ok(args ...string) string {
	m.t.Helper()
	out, errs, code := m.run(args...)
	if code != 0 {
		m.t.Fatalf("kdelta %s: exit %d\n%s%s", strings.Join(args, " "), code, out, errs)
	}
	return out
}

// A proc is a kdelta running in the background.
type proc struct {
	cmd    *exec.Cmd
	stderr syncBuffer
	done   chan struct{}
	err    error
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// start starts kdelta in the background; the test's end kills it.
func (m *machine) start(args ...string) *proc {
	m.t.Helper()
	return m.startCmd(kdelta, args...)
}

// startCmd starts a command in the machine's environment in the
// background; the test's end kills it.
func (m *machine) startCmd(name string, args ...string) *proc {
	m.t.Helper()
	p := &proc{cmd: exec.Command(name, args...), done: make(chan struct{})}
	p.cmd.Env = m.env
	p.cmd.Stderr = &p.stderr
	if err := p.cmd.Start(); err != nil {
		m.t.Fatal(err)
	}
	go func() { p.err = p.cmd.Wait(); close(p.done) }()
	m.t.Cleanup(func() {
		p.cmd.Process.Kill()
		<-p.done
	})
	return p
}

// wait waits for p to exit, at most d, and returns its status.
func (p *proc) wait(t *testing.T, d time.Duration) int {
	t.Helper()
	select {
	case <-p.done:
	case <-time.After(d):
		t.Fatalf("kdelta did not exit within %s; its log:\n%s", d, p.stderr.String())
	}
	if ee, ok := p.err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	if p.err != nil {
		t.Fatal(p.err)
	}
	return 0
}

func (p *proc) signal(sig syscall.Signal) { p.cmd.Process.Signal(sig) }

// until polls f every 50ms until it holds, failing t after d.
func until(t *testing.T, d time.Duration, what string, f func() bool, onFail ...func()) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !f() {
		if time.Now().After(deadline) {
			for _, g := range onFail {
				g()
			}
			t.Fatalf("%s: not within %s", what, d)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// testKernel is the kernel the vm jobs boot (KDELTA_TEST_KERNEL, which
// the test command sets), with qemu to boot it.
func testKernel(t *testing.T) string {
	t.Helper()
	kernel := os.Getenv("KDELTA_TEST_KERNEL")
	if kernel == "" {
		testenv.Skip(t, "KDELTA_TEST_KERNEL is not set: no kernel to boot (scripts/vm-kernel.sh fetches one)")
	}
	testenv.NeedCommand(t, "qemu-system-x86_64", "qemu-system-x86")
	return kernel
}

// sqlite opens the machine's store file for the test's own queries.
func (m *machine) sqlite() *sql.DB {
	m.t.Helper()
	db, err := sql.Open("sqlite", "file:"+m.db()+"?_busy_timeout=10000")
	if err != nil {
		m.t.Fatal(err)
	}
	m.t.Cleanup(func() { db.Close() })
	return db
}

// count runs a COUNT query.
func count(t *testing.T, db *sql.DB, query string, args ...any) int {
	t.Helper()
	var n int
	if err := db.QueryRow(query, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

// checkRuns checks that every benchmark of every stored set of job id
// has exactly want measured runs, indexed 0..want-1, each once.
func checkRuns(t *testing.T, loc string, setIDs []string, want int) {
	t.Helper()
	st, err := store.Open(context.Background(), loc)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for _, id := range setIDs {
		s, err := st.Get(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		if !s.Complete {
			t.Errorf("set %s: not complete", id)
		}
		for _, b := range s.Benchmarks {
			seen := map[int]bool{}
			for _, r := range b.Runs {
				if r.Warmup {
					continue
				}
				if seen[r.Index] {
					t.Errorf("set %s %s: run %d twice", id, b.Workload, r.Index)
				}
				seen[r.Index] = true
			}
			for i := 0; i < want; i++ {
				if !seen[i] {
					t.Errorf("set %s %s: run %d missing", id, b.Workload, i)
				}
			}
			if len(seen) != want {
				t.Errorf("set %s %s: %d measured runs, want %d", id, b.Workload, len(seen), want)
			}
		}
	}
}
