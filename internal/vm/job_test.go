package vm

import (
	"strings"
	"testing"
	"time"
)

func TestParseJob(t *testing.T) {
	tests := []struct {
		args    []string
		want    Job
		wantErr string
	}{
		{args: []string{"run", "syscall"}, want: Job{Specs: []string{"syscall"}, Repeat: 5, Warmup: 1, Timeout: 10 * time.Minute}},
		{args: []string{"run", "syscall:calls=100", "rcu:calls=10", "-r", "2", "--warmup", "0", "--timeout", "1m", "--cpus", "1", "--label", "k=v"},
			want: Job{Specs: []string{"syscall:calls=100", "rcu:calls=10"}, Repeat: 2, Timeout: time.Minute, CPUs: "1", Labels: map[string]string{"k": "v"}}},
		{args: []string{"run", "--quick"}, want: Job{Quick: true, Repeat: 5, Warmup: 1, Timeout: 10 * time.Minute}},
		{args: []string{"run", "bridge", "--funclatency", "synchronize_rcu,rcu_barrier", "--funclatency-scope", "tasks"},
			want: Job{Specs: []string{"bridge"}, Repeat: 5, Warmup: 1, Timeout: 10 * time.Minute, FuncLatency: []string{"synchronize_rcu", "rcu_barrier"}, FuncScope: "tasks"}},
		{args: []string{"run", "bridge", "--funclatency", "sync*"}, wantErr: "--funclatency: \"sync*\" is not a kernel function name"},
		{args: []string{"run", "bridge", "--funclatency", "f", "--funclatency-scope", "cpus"}, wantErr: "--funclatency-scope: unknown scope"},
		{args: []string{"run", "bridge", "--funclatency-scope", "tasks"}, wantErr: "tasks needs --funclatency"},
		{args: nil, wantErr: "nothing to run"},
		{args: []string{"top"}, wantErr: `not "top"`},
		{args: []string{"stat", "-r", "2"}, wantErr: "no command"},
		{args: []string{"stat", "-r", "0", "--", "true"}, wantErr: "-r must be at least 1"},
		{args: []string{"run"}, wantErr: "no workloads"},
		{args: []string{"run", "nosuch"}, wantErr: `unknown workload "nosuch"`},
		{args: []string{"run", "syscall:calls=x"}, wantErr: "calls"},
		{args: []string{"run", "syscall", "-r", "0"}, wantErr: "-r/--repeat"},
		{args: []string{"run", "syscall", "--bogus"}, wantErr: "bogus"},
		{args: []string{"run", "syscall", "--label", "novalue"}, wantErr: "--label"},
		{args: []string{"run", "syscall", "--cpus", "x"}, wantErr: "--cpus"},
		{args: []string{"run", "messaging", "--monitor", "schedstat@20s+5s,stat"},
			want: Job{Specs: []string{"messaging"}, Repeat: 5, Warmup: 1, Timeout: 10 * time.Minute, Monitors: "schedstat@20s+5s,stat"}},
		{args: []string{"run", "syscall", "--monitor", "schedstat@5s"}, wantErr: "not START+DURATION"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			j, err := ParseJob(tt.args)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(j.Specs, " ") != strings.Join(tt.want.Specs, " ") || j.Quick != tt.want.Quick ||
				j.Repeat != tt.want.Repeat || j.Warmup != tt.want.Warmup || j.Timeout != tt.want.Timeout ||
				j.CPUs != tt.want.CPUs || len(j.Labels) != len(tt.want.Labels) || j.Monitors != tt.want.Monitors ||
				strings.Join(j.FuncLatency, ",") != strings.Join(tt.want.FuncLatency, ",") || j.FuncScope != tt.want.FuncScope {
				t.Errorf("got %+v, want %+v", j, tt.want)
			}
			// What the guest reads is what the host wrote.
			back, err := unmarshalJob(marshalJob(j))
			if err != nil || back.Repeat != j.Repeat || back.Timeout != j.Timeout || back.Monitors != j.Monitors ||
				strings.Join(back.FuncLatency, ",") != strings.Join(j.FuncLatency, ",") || back.FuncScope != j.FuncScope {
				t.Errorf("job does not survive the initramfs: %+v, %v", back, err)
			}
		})
	}
}
