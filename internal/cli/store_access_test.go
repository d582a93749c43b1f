package cli_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/store"
	"github.com/kdelta/kdelta/internal/testenv"
)

// sharedDir makes a directory that every user may enter and read, with
// a copy of the kdelta binary in it that every user may run.
func sharedDir(t *testing.T) (dir, bin string) {
	t.Helper()
	dir, err := os.MkdirTemp("", "kdelta-store-access-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	bin = filepath.Join(dir, "kdelta")
	src, err := os.Open(kdeltaBinary(t))
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst, err := os.OpenFile(bin, os.O_CREATE|os.O_WRONLY, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		t.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		t.Fatal(err)
	}
	return dir, bin
}

// TestReadOnlyStore reads a root-owned store as a user who may not write
// it, and a store on a read-only bind mount, with every command that only
// reads: each works, where each used to fail with "attempt to write a
// readonly database" or "unable to open database file" (issue 35 point
// 6).
func TestReadOnlyStore(t *testing.T) {
	testenv.NeedRoot(t, "a store owned by root, read as nobody, and a read-only bind mount")
	testenv.NeedCommand(t, "unshare", "util-linux")
	dir, bin := sharedDir(t)
	data := filepath.Join(dir, "data")
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(data, "kdelta", "kdelta.db"))
	if err != nil {
		t.Fatal(err)
	}
	m := result.Metric{Name: "ns/call", Unit: "ns", Better: result.Lower}
	var ids []string
	for i, kernel := range []string{"6.1", "6.2"} {
		s := &result.Set{Schema: result.Schema, ID: "20261205T1200" + string(rune('0'+i)) + "0-aaaaaaaaaaa" + string(rune('0'+i)), Created: time.Date(2026, 12, 5, 12, i, 0, 0, time.UTC),
			Tool: "kdelta test", Labels: map[string]string{"kernel": kernel}, Complete: true}
		b := &result.Benchmark{Workload: "syscall", Params: map[string]string{"calls": "1000"}, Metrics: []result.Metric{m}}
		for r := 0; r < 3; r++ {
			b.Runs = append(b.Runs, &result.Run{Index: r, Status: result.StatusOK, Start: s.Created, Values: map[string]float64{"ns/call": 100 + float64(r+i)}})
		}
		s.Benchmarks = []*result.Benchmark{b}
		if err := st.Save(ctx, s); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, s.ID)
	}
	st.Close()
	for _, d := range []string{data, filepath.Join(data, "kdelta")} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	reads := [][]string{
		{"results", "ls"},
		{"show", ids[0]},
		{"show", "kernel=6.2"},
		{"history", "--workload", "syscall", "--by", "kernel"},
		{"compare", "kernel=6.1", "kernel=6.2"},
		{"explain", ids[0], ids[1]},
	}
	env := append(os.Environ(), "XDG_DATA_HOME="+data, "XDG_STATE_HOME="+filepath.Join(dir, "state"), "HOME="+dir, "KDELTA_STORE=")
	run := func(t *testing.T, cmd *exec.Cmd, what string) {
		t.Helper()
		cmd.Env = env
		var stderr strings.Builder
		cmd.Stderr = &stderr
		cmd.Run()
		if code := cmd.ProcessState.ExitCode(); code != 0 {
			t.Errorf("%s: exit %d:\n%s", what, code, stderr.String())
		}
	}
	t.Run("not the owner", func(t *testing.T) {
		for _, args := range reads {
			cmd := exec.Command(bin, args...)
			cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
			run(t, cmd, "as nobody: kdelta "+strings.Join(args, " "))
		}
	})
	t.Run("serve as nobody", func(t *testing.T) {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := l.Addr().String()
		l.Close()
		cmd := exec.Command(bin, "serve", "--addr", addr)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		cmd.Env = env
		var stderr strings.Builder
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		defer func() { cmd.Process.Kill(); cmd.Wait() }()
		for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(100 * time.Millisecond) {
			resp, err := http.Get("http://" + addr + "/")
			if err == nil {
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), ids[1]) {
					t.Errorf("serve as nobody: GET /: %s, the page does not list %s:\n%s", resp.Status, ids[1], stderr.String())
				}
				break
			}
			if time.Now().After(deadline) || cmd.ProcessState != nil {
				t.Fatalf("serve as nobody never answered: %v\n%s", err, stderr.String())
			}
		}
	})
	t.Run("read-only mount", func(t *testing.T) {
		for _, args := range reads {
			script := `mount --bind -o ro "$1" "$1" && shift && exec "$@"`
			cmd := exec.Command("unshare", append([]string{"-m", "--propagation", "private", "sh", "-c", script, "sh", data, bin}, args...)...)
			run(t, cmd, "on a read-only mount: kdelta "+strings.Join(args, " "))
		}
	})
	// Reading left the store as it was: no file beside it was made by a
	// reader that could not write it, and its integrity holds.
	st, err = store.Open(ctx, filepath.Join(data, "kdelta", "kdelta.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if infos, err := st.List(ctx, store.Filter{}); err != nil || len(infos) != 2 {
		t.Errorf("after the reads: %d sets (%v), want 2", len(infos), err)
	}
}

// TestStoreFullDisk records in a new store on a full disk (a small tmpfs
// in a mount namespace of its own): one line says the store cannot be
// made and why, where it used to say "no such table: goose_db_version"
// (issue 35 point 6).
func TestStoreFullDisk(t *testing.T) {
	testenv.NeedRoot(t, "a tmpfs mount in a mount namespace")
	testenv.NeedCommand(t, "unshare", "util-linux")
	dir, bin := sharedDir(t)
	data := filepath.Join(dir, "data")
	if err := os.Mkdir(data, 0o755); err != nil {
		t.Fatal(err)
	}
	in, err := filepath.Abs(filepath.Join("..", "result", "testdata", "import", "perf-bench-sched-pipe-threads.txt"))
	if err != nil {
		t.Fatal(err)
	}
	script := `mount -t tmpfs -o size=8k tmpfs "$1" && shift && exec "$@"`
	cmd := exec.Command("unshare", "-m", "--propagation", "private", "sh", "-c", script, "sh", data, bin, "import", in)
	cmd.Env = append(os.Environ(), "XDG_DATA_HOME="+data, "XDG_STATE_HOME="+filepath.Join(dir, "state"), "KDELTA_STORE=")
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.Run()
	out := strings.TrimSpace(stderr.String())
	code := cmd.ProcessState.ExitCode()
	if code != 2 || strings.Contains(out, "\n") || strings.Contains(out, "goose") || strings.Contains(out, "recorded as") ||
		!strings.Contains(out, "cannot create a new store") || !(strings.Contains(out, "no space left on device") || strings.Contains(out, "disk is full")) {
		t.Errorf("exit %d, stderr:\n%s\nwant exit 2 and one line saying the disk is full", code, out)
	}
	t.Logf("exit %d: %s", code, out)
}

// TestStoreFullDiskRecord records in a store whose disk has filled since
// it was made: the save fails with one line, and nothing says "recorded
// as" a set the store does not hold, where a run used to say "recorded as
// ID" and then "not in the store" (issue 35 point 6).
func TestStoreFullDiskRecord(t *testing.T) {
	testenv.NeedRoot(t, "a tmpfs mount in a mount namespace")
	testenv.NeedCommand(t, "unshare", "util-linux")
	dir, bin := sharedDir(t)
	data := filepath.Join(dir, "data")
	if err := os.Mkdir(data, 0o755); err != nil {
		t.Fatal(err)
	}
	in, err := filepath.Abs(filepath.Join("..", "result", "testdata", "import", "perf-bench-sched-pipe-threads.txt"))
	if err != nil {
		t.Fatal(err)
	}
	// The store is made while there is room, then the disk is filled.
	script := `mount -t tmpfs -o size=2m tmpfs "$1" && "$2" import "$3" >/dev/null 2>&1 && ` +
		`{ dd if=/dev/zero of="$1/fill" bs=4k 2>/dev/null; true; } && exec "$2" import "$3" --label again=1`
	cmd := exec.Command("unshare", "-m", "--propagation", "private", "sh", "-c", script, "sh", data, bin, in)
	cmd.Env = append(os.Environ(), "XDG_DATA_HOME="+data, "XDG_STATE_HOME="+filepath.Join(dir, "state"), "KDELTA_STORE=")
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.Run()
	out := strings.TrimSpace(stderr.String())
	code := cmd.ProcessState.ExitCode()
	if code != 2 || strings.Contains(out, "\n") || strings.Contains(out, "recorded as") || strings.Contains(out, "not in the store") ||
		!(strings.Contains(out, "full") || strings.Contains(out, "no space left on device")) {
		t.Errorf("exit %d, stderr:\n%s\nwant exit 2 and one line saying the disk is full", code, out)
	}
	t.Logf("exit %d: %s", code, out)
}
