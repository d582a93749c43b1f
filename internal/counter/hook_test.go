package counter

import (
	"bytes"
	"strings"
	"testing"

	"github.com/kdelta/kdelta/internal/result"
)

// TestHook uses Hook as the runner does: called at the child's ready with
// its pid, then with the finished run.
func TestHook(t *testing.T) {
	skipWithoutPerf(t)
	evs, err := ParseEvents("context-switches,raw_syscalls:sys_enter,cycles")
	if err != nil {
		t.Fatal(err)
	}
	specs, _ := ParseMonitors("stat,schedstat,stat@1h+1s")
	onReady := Hook(evs, Options{}, specs, "/")
	var out bytes.Buffer
	cmd, start := startHelper(t, "pingpong", &out, "N=500", "M=1000")
	finish, err := onReady(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	start()
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	r := &result.Run{}
	finish(r)
	if len(r.Counters) != 3 || len(r.Monitors) != 3 {
		t.Fatalf("counters %+v monitors %+v", r.Counters, r.Monitors)
	}
	if c := r.Counters[0]; c.Unsupported != "" || c.Value < 1000 {
		t.Errorf("context-switches %+v, want ≥ 1000", c)
	}
	if m := r.Monitors[0]; m.Name != "stat" || m.Values["ctxt"] < 1000 {
		t.Errorf("stat monitor %+v", m)
	}
	if m := r.Monitors[2]; !strings.HasPrefix(m.Unavailable, "the run ended before the window did (it lasted ") || m.Window != "@1h+1s" {
		t.Errorf("windowed monitor %+v", m)
	}

	// Nothing countable is not an error: the counters say why.
	none, _ := ParseEventsAt(t.TempDir(), "raw_syscalls:sys_enter")
	cmd2, start2 := startHelper(t, "pingpong", &bytes.Buffer{}, "N=10", "M=10")
	finish, err = Hook(none, Options{}, nil, "/")(cmd2.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	start2()
	cmd2.Wait()
	r = &result.Run{}
	finish(r)
	if len(r.Counters) != 1 || r.Counters[0].Unsupported == "" || r.Monitors != nil {
		t.Errorf("run %+v", r)
	}
}
