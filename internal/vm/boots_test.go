package vm

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/runner"
	"github.com/kdelta/kdelta/internal/workload"
)

// TestMeasureOptions checks the boot Measure asks for: the runner's
// options as the guest's job, under kdelta vm's defaults.
func TestMeasureOptions(t *testing.T) {
	sp, err := workload.ParseSpec("syscall:calls=1000")
	if err != nil {
		t.Fatal(err)
	}
	opt := &runner.Options{Repeat: 3, Warmup: 1, FIFO: 5, Timeout: time.Minute, CPUs: []int{0, 2, 3},
		Labels: map[string]string{"k": "v"}, Version: "v1", Command: []string{"kdelta", "bisect-run"}}
	o := measureOptions(Variant{Kernel: "bzImage", Append: "quiet"}, []workload.Spec{sp}, opt, nil)
	want := Job{Specs: []string{"syscall:" + result.FormatParams(sp.Values)}, Repeat: 3, Warmup: 1, Timeout: time.Minute,
		CPUs: "0,2-3", FIFO: 5, Version: "v1", Command: []string{"kdelta", "bisect-run"}}
	if !reflect.DeepEqual(*o.Job, want) {
		t.Errorf("job %+v, want %+v", *o.Job, want)
	}
	if !reflect.DeepEqual(o.Variants, []Variant{{Kernel: "bzImage", Append: "quiet"}}) || o.Boots != 1 || o.CPUs != DefaultCPUs ||
		o.Mem != DefaultMem || o.Accel != "auto" || o.Timeout != DefaultTimeout || o.Labels["k"] != "v" {
		t.Errorf("options %+v", o)
	}
}

// fakeBoots stands for qemu: each boot brings home one set with the
// job's warm-ups and runs of one benchmark, labelled with accel.
type fakeBoots struct {
	accel  string
	jobs   []Job    // as each boot was asked
	accels []string // the accelerator each boot was asked for
	sets   int      // result sets each boot brings home; 0 means 1
	err    error
}

func (f *fakeBoots) boot(_ context.Context, o *Options) ([]*result.Set, error) {
	f.jobs = append(f.jobs, *o.Job)
	f.accels = append(f.accels, o.Accel)
	if f.err != nil {
		return nil, f.err
	}
	b := &result.Benchmark{Workload: "syscall", Params: map[string]string{"calls": "1000"}}
	for i := range o.Job.Warmup {
		b.Runs = append(b.Runs, &result.Run{Index: i, Warmup: true, Status: result.StatusOK})
	}
	for i := range o.Job.Repeat {
		b.Runs = append(b.Runs, &result.Run{Index: i, Status: result.StatusOK, Values: map[string]float64{"ns/call": 100}})
	}
	s := &result.Set{Labels: map[string]string{"accel": f.accel}, Benchmarks: []*result.Benchmark{b}, Complete: true}
	sets := []*result.Set{s}
	for range f.sets - 1 {
		sets = append(sets, s)
	}
	return sets, nil
}

// TestBoots schedules boots as bisect-run --vm does: one boot per batch,
// the later ones with the batch's runs and the guest's warm-ups, under
// TCG once the first fell back to it, merged into one set that is
// recorded after every boot.
func TestBoots(t *testing.T) {
	for _, accel := range []string{"kvm", "kvm,tcg"} {
		f := &fakeBoots{accel: accel}
		recorded := 0
		x := &boots{opt: Options{Accel: "auto", Job: &Job{Repeat: 3, Warmup: 1}}, boot: f.boot,
			record: func(*result.Set) error { recorded++; return nil }}
		open := func(s *result.Set) []bool { return []bool{true} }
		if err := runner.Schedule(context.Background(), x, 1, 3, runner.Until{Batch: 2, MaxRuns: 7, More: open}); err != nil {
			t.Fatal(err)
		}
		var repeats, warmups []int
		for _, j := range f.jobs {
			repeats, warmups = append(repeats, j.Repeat), append(warmups, j.Warmup)
		}
		if !reflect.DeepEqual(repeats, []int{3, 2, 2}) || !reflect.DeepEqual(warmups, []int{1, 1, 1}) {
			t.Errorf("%s: boots with %v runs and %v warm-ups, want [3 2 2] and [1 1 1]", accel, repeats, warmups)
		}
		later := "auto"
		if accel == "kvm,tcg" {
			later = "tcg"
		}
		if want := []string{"auto", later, later}; !reflect.DeepEqual(f.accels, want) {
			t.Errorf("%s: accelerators %v, want %v", accel, f.accels, want)
		}
		b := x.set.Benchmarks[0]
		if n := len(b.Measured()); n != 7 || recorded != 3 || b.Runs[len(b.Runs)-1].Info["boot"] != "2" {
			t.Errorf("%s: %d measured runs, %d records, last run's boot %q; want 7, 3, 2", accel, n, recorded, b.Runs[len(b.Runs)-1].Info["boot"])
		}
		if x.opt.Job.Repeat != 3 || x.opt.Accel != "auto" {
			t.Errorf("%s: a boot changed the session's options: %+v", accel, x.opt)
		}
	}
}

// TestBootsErrors checks a boot that fails and one that brings home more
// sets than it booted variants.
func TestBootsErrors(t *testing.T) {
	failed := errors.New("qemu: exit status 1")
	for _, f := range []*fakeBoots{{err: failed}, {sets: 2}} {
		x := &boots{opt: Options{Job: &Job{Repeat: 1}}, boot: f.boot}
		err := x.Run(context.Background(), runner.Batch{Repeat: 1})
		if f.err != nil && !errors.Is(err, failed) || f.err == nil && (err == nil || !strings.Contains(err.Error(), "--vm: 2 result sets came home, want 1")) {
			t.Errorf("boot %+v: %v", f, err)
		}
		if x.Sets() != nil {
			t.Errorf("boot %+v: sets %v after a failed boot", f, x.Sets())
		}
	}
}
