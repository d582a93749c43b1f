package vm

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// TestPairVariants checks how --kernel and --append values pair.
func TestPairVariants(t *testing.T) {
	v := func(k, a string) Variant { return Variant{Kernel: k, Append: a} }
	tests := []struct {
		kernels, appends []string
		want             []Variant
		err              string
	}{
		{[]string{"k"}, nil, []Variant{v("k", "")}, ""},
		{[]string{"k1", "k2"}, []string{"a1", "a2"}, []Variant{v("k1", "a1"), v("k2", "a2")}, ""},
		{[]string{"k"}, []string{"a1", "a2"}, []Variant{v("k", "a1"), v("k", "a2")}, ""},
		{[]string{"k1", "k2"}, []string{"a"}, []Variant{v("k1", "a"), v("k2", "a")}, ""},
		{[]string{"k1", "k2"}, nil, []Variant{v("k1", ""), v("k2", "")}, ""},
		{nil, []string{"a"}, nil, "vm: --kernel IMAGE is required"},
		{[]string{"k1", "k2", "k3"}, []string{"a1", "a2"}, nil, "vm: 3 --kernel and 2 --append do not pair"},
	}
	for _, tt := range tests {
		got, err := pairVariants(tt.kernels, tt.appends)
		if tt.err != "" {
			if err == nil || !strings.HasPrefix(err.Error(), tt.err) {
				t.Errorf("pairVariants(%q, %q): %v, want %q", tt.kernels, tt.appends, err, tt.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("pairVariants(%q, %q) = %v, %v; want %v", tt.kernels, tt.appends, got, err, tt.want)
		}
	}
}

// TestApplyCommand checks kdelta vm's command line without a job file:
// the guest's command after --, and the errors around it.
func TestApplyCommand(t *testing.T) {
	var o Options
	err := o.Apply(CommandLine{Kernels: []string{"bzImage"}, Appends: []string{"quiet"}, Args: []string{"run", "syscall", "-r", "3"}, Dash: 0})
	if err != nil {
		t.Fatal(err)
	}
	if o.Job.Repeat != 3 || !reflect.DeepEqual(o.Job.Specs, []string{"syscall"}) || !reflect.DeepEqual(o.Variants, []Variant{{Kernel: "bzImage", Append: "quiet"}}) {
		t.Errorf("job %+v, variants %v", o.Job, o.Variants)
	}
	for _, tt := range []struct {
		cl   CommandLine
		want string
	}{
		{CommandLine{Kernels: []string{"k"}, Dash: -1}, "vm: give the guest's command after --"},
		{CommandLine{Kernels: []string{"k"}, Args: []string{"x", "run", "syscall"}, Dash: 1}, "vm: unexpected arguments before --: x"},
		{CommandLine{Args: []string{"run", "syscall"}, Dash: 0}, "vm: --kernel IMAGE is required"},
		{CommandLine{File: "job.toml", Args: []string{"run"}, Dash: 0}, "vm: -f takes the workloads from the job file"},
	} {
		var o Options
		if err := o.Apply(tt.cl); err == nil || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("Apply(%+v): %v, want %q", tt.cl, err, tt.want)
		}
	}
}

// jobFile writes a job file into a directory of its own.
func jobFile(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "job.toml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

const twoVariants = `repeat = 2
warmup = 0
labels = { suite = "preempt" }
monitors = "schedstat@1s+1s"
funclatency = "synchronize_rcu"

[[workload]]
name = "syscall"
params = { calls = 20000 }

[[variant]]
name = "none"
kernel = "vmlinuz"
append = "preempt=none"

[[variant]]
name = "full"
kernel = "/boot/vmlinuz"
append = "preempt=full"

[vm]
boots = 3
mem = "2G"
timeout = "5m"
until_conclusive = true
max_boots = 6
`

// TestApplyJobFile checks kdelta vm -f: the variants' kernels (relative
// to the job file, or all replaced by one --kernel), the workloads and
// repeats, and the [vm] table under the flags given.
func TestApplyJobFile(t *testing.T) {
	path := jobFile(t, twoVariants)
	o := Options{Boots: 1, Mem: DefaultMem, Timeout: DefaultTimeout, CPUs: DefaultCPUs}
	given := func(flag string) bool { return flag == "mem" }
	if err := o.Apply(CommandLine{File: path, Dash: -1, Given: given}); err != nil {
		t.Fatal(err)
	}
	want := []Variant{{Kernel: filepath.Join(filepath.Dir(path), "vmlinuz"), Append: "preempt=none"}, {Kernel: "/boot/vmlinuz", Append: "preempt=full"}}
	if !reflect.DeepEqual(o.Variants, want) {
		t.Errorf("variants %v, want %v", o.Variants, want)
	}
	j := o.Job
	if !reflect.DeepEqual(j.Specs, []string{"syscall:calls=20000"}) || j.Repeat != 2 || j.Warmup != 0 || j.Labels["suite"] != "preempt" || j.Monitors != "schedstat@1s+1s" ||
		!reflect.DeepEqual(j.FuncLatency, []string{"synchronize_rcu"}) {
		t.Errorf("job %+v", j)
	}
	// boots and timeout come from [vm]; mem was given as a flag; cpus is
	// not in the table.
	if o.Boots != 3 || o.Timeout != 5*time.Minute || o.Mem != DefaultMem || o.CPUs != DefaultCPUs {
		t.Errorf("settings: boots %d, timeout %v, mem %s, cpus %d", o.Boots, o.Timeout, o.Mem, o.CPUs)
	}
	if !o.Until.On || o.Until.MaxBoots != 6 {
		t.Errorf("until: %+v, want on with 6 boots at most", o.Until)
	}

	var one Options
	if err := one.Apply(CommandLine{File: path, Kernels: []string{"/k"}, Dash: -1}); err != nil {
		t.Fatal(err)
	}
	if one.Variants[0].Kernel != "/k" || one.Variants[1].Kernel != "/k" || one.Boots != 3 || one.Mem != "2G" {
		t.Errorf("one --kernel: variants %v, boots %d, mem %s", one.Variants, one.Boots, one.Mem)
	}
}

// TestApplyJobFileErrors checks the job files kdelta vm refuses.
func TestApplyJobFileErrors(t *testing.T) {
	knobs := `[[workload]]
name = "syscall"

[[variant]]
name = "a"
set = ["smt=off"]
`
	noWorkload := `[[variant]]
name = "a"
kernel = "vmlinuz"
`
	tests := []struct {
		text    string
		kernels []string
		want    string
	}{
		{twoVariants, []string{"k1", "k2"}, "--kernel: with -f, give one image for every variant, or none"},
		{knobs, nil, "variant a has no kernel or append: kdelta vm boots kernels (use kdelta ab for knobs)"},
		{"[[workload]]\nname = \"syscall\"\n", nil, "no [[variant]] with a kernel to boot"},
		{noWorkload, nil, "no [[workload]] to run"},
	}
	for _, tt := range tests {
		var o Options
		err := o.Apply(CommandLine{File: jobFile(t, tt.text), Kernels: tt.kernels, Dash: -1})
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Apply: %v, want %q", err, tt.want)
		}
		if o.Job != nil || o.Variants != nil {
			t.Errorf("Apply failed (%v) but set the job %+v, variants %v", err, o.Job, o.Variants)
		}
	}
}
