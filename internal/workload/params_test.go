package workload_test

import (
	"strings"
	"testing"

	"github.com/kdelta/kdelta/internal/workload"
)

func TestParseSpec(t *testing.T) {
	tests := []struct {
		in      string
		want    map[string]string // subset of the resolved values
		wantErr string            // substring of the error
	}{
		{in: "syscall", want: map[string]string{"syscall": "getppid", "calls": "10000000"}},
		{in: "syscall:syscall=gettid,calls=5", want: map[string]string{"syscall": "gettid", "calls": "5"}},
		{in: "pipe:mode=thread,order=symmetric,cpus=0,1", wantErr: `parameter "1" is not key=value`},
		{in: "pipe:mode=thread,order=symmetric,cpus='0,1'", want: map[string]string{"mode": "thread", "cpus": "0,1"}},
		{in: "pipe:cpus=same", want: map[string]string{"cpus": "same", "loops": "1000000"}},
		{in: "nosuch", wantErr: `unknown workload "nosuch"`},
		{in: "syscall:bogus=1", wantErr: `unknown parameter "bogus"`},
		{in: "syscall:calls=ten", wantErr: `parameter calls: bad value "ten" (want an integer)`},
		{in: "syscall:calls=0", wantErr: `bad value "0" (at least 1)`},
		{in: "syscall:syscall=open", wantErr: `bad value "open" (one of getppid|`},
		{in: "syscall:soak=forever", wantErr: `want a duration`},
		{in: "pipe:cpus='x,y", wantErr: "unterminated"},
		{in: "pipe:cpus='x,y'", wantErr: `cpus: bad value "x,y"`},
		{in: "pipe:mode", wantErr: `parameter "mode" is not key=value`},
		{in: "pipe:mode=thread,", wantErr: "empty parameter"},
		// Issue 12: the last one used to win silently.
		{in: "syscall:calls=1,calls=2", wantErr: `workload syscall: parameter calls given twice in "syscall:calls=1,calls=2"`},
		{in: "command:cmd='a,b',shell=false,cmd=c", wantErr: `parameter cmd given twice in "command:cmd='a,b',shell=false,cmd=c"`},
	}
	for _, tt := range tests {
		sp, err := workload.ParseSpec(tt.in)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("ParseSpec(%q) error = %v, want it to contain %q", tt.in, err, tt.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseSpec(%q): %v", tt.in, err)
			continue
		}
		for k, v := range tt.want {
			if sp.Values[k] != v {
				t.Errorf("ParseSpec(%q)[%s] = %q, want %q", tt.in, k, sp.Values[k], v)
			}
		}
		if len(sp.Values) != len(sp.Workload.Params()) {
			t.Errorf("ParseSpec(%q) resolved %d values for %d parameters", tt.in, len(sp.Values), len(sp.Workload.Params()))
		}
	}
}

func TestPercentileRcuscaleRule(t *testing.T) {
	// kvm-recheck-rcuscale.sh takes the sorted value at index
	// max(1, floor(N*p/100)), counting from 1.
	s := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	for _, tt := range []struct{ p, want float64 }{{50, 5}, {90, 9}, {99, 9}, {1, 1}, {100, 10}} {
		if got := workload.Percentile(s, tt.p); got != tt.want {
			t.Errorf("Percentile(1..10, %v) = %v, want %v", tt.p, got, tt.want)
		}
	}
	l := workload.Summarize("ms", []float64{4, 8, 4, 12})
	if l.Count != 4 || l.Mean != 7 || l.Min != 4 || l.Max != 12 || l.P50 != 4 || len(l.Raw) != 4 {
		t.Errorf("Summarize = %+v", l)
	}
}
