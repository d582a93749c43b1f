// Package job describes an experiment — workloads, how to run them, the
// variants (knob settings, or kernels to boot) and the sweep (matrix) to
// run them under — read from a TOML job file or built from flags, expands
// it into cells, and runs the cells interleaved, run by run, with each
// cell's knobs set before its runs.
package job

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/kdelta/kdelta/internal/counter"
	"github.com/kdelta/kdelta/internal/knob"
)

// A Job is an experiment.
type Job struct {
	// File is the job file it was read from; "" when built from flags.
	File        string
	Description string
	Workloads   []Workload
	Repeat      int
	Warmup      int
	CPUs        string
	// Shield is a CPU list to shield for the session (knob.Options.Shield).
	Shield  string
	FIFO    int
	Timeout time.Duration
	// Order is interleaved (A B A B ...), random (each round's variants
	// shuffled, from Seed) or blocks (all of A, then all of B).
	Order  string
	Seed   uint64
	Labels map[string]string
	// Monitors, Events and Counters are kdelta run's --monitor, --events
	// and --counters.
	Monitors, Events, Counters string
	// Profile, when set, asks for profiled runs after the measured ones.
	Profile *Profile
	// FuncLatency are the kernel functions timed in the kernel during
	// every run (--funclatency), and FuncScope whose calls: system or
	// tasks (--funclatency-scope; "" is system).
	FuncLatency []string
	FuncScope   string
	// UntilConclusive adds rounds until every variant's first metric has
	// a conclusive verdict against the first variant, up to MaxRuns.
	UntilConclusive bool
	MaxRuns         int
	// Set are knob settings for the whole session, under every variant.
	Set      []knob.Setting
	Variants []Variant
	Matrix   []Axis
	// VM holds kdelta vm's settings for kernel variants.
	VM *VM

	given map[string]bool
}

// Given tells whether the job file set a top-level key (repeat, cpus, ...),
// so that a flag given on the command line overrides only what it names.
func (j *Job) Given(key string) bool { return j.given[key] }

// A Workload is one [[workload]] of a job.
type Workload struct {
	Name   string
	Params map[string]string
	// Given are the parameters the job names itself (a file's params,
	// a command line's WORKLOAD:k=v), which a matrix axis may not sweep.
	Given []string
	// Where is file:line, for errors.
	Where string
}

// A Variant is one arm of the experiment: knob settings on this kernel,
// or a kernel image and command line for kdelta vm.
type Variant struct {
	Name   string
	Set    []knob.Setting
	Kernel string
	Append string
	Labels map[string]string
	Where  string
}

// Booted tells whether the variant is a kernel to boot (kdelta vm).
func (v Variant) Booted() bool { return v.Kernel != "" || v.Append != "" }

// An Axis is one key of the matrix and the values it sweeps: a workload
// parameter (groups=1,2,4) or a knob (smt=on,off).
type Axis struct {
	Key    string
	Values []string
	// Knob is set when Key names a knob; the axis is then swept by
	// setting it, else by the workloads' parameter of that name.
	Knob  *knob.Knob
	Where string
}

// Profile is kdelta run's --profile settings.
type Profile struct {
	Runs       int
	CallGraph  bool
	Event      string
	SystemWide bool
	Freq       int
}

// VM is kdelta vm's settings.
type VM struct {
	Boots        int
	CPUs         int
	Mem          string
	Accel        string
	Modules      string
	Timeout      time.Duration
	BootDeadline time.Duration
	// UntilConclusive and MaxBoots are vm's --until-conclusive and
	// --max-boots: boots after the first rounds while a verdict between
	// the variants is inconclusive, up to MaxBoots of each (0: vm's
	// default).
	UntilConclusive bool
	MaxBoots        int
}

// An Error is a problem in a job file, at a line when it is known.
type Error struct {
	File string
	Line int
	Msg  string
}

func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Msg)
}

// Orders are the run orders a job can ask for.
var Orders = []string{"interleaved", "random", "blocks"}

// Load reads a job file.
func Load(path string) (*Job, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, data)
}

var variantName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.+-]*$`)

// Parse reads a job file's content; name is used in errors. Unknown keys
// and values of the wrong type are errors at their line.
func Parse(name string, data []byte) (*Job, error) {
	var raw map[string]any
	if _, err := toml.Decode(string(data), &raw); err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return nil, &Error{File: name, Line: pe.Position.Line, Msg: "toml: " + pe.Message}
		}
		return nil, &Error{File: name, Msg: err.Error()}
	}
	d := &decoder{file: name, src: strings.Split(string(data), "\n"), ix: indexLines(string(data))}
	j := &Job{File: name, Labels: map[string]string{}, given: map[string]bool{}, Order: "interleaved", Repeat: 5, Warmup: 1}
	for _, key := range d.ordered(nil, raw) {
		v := raw[key]
		p := keyPath{key}
		var err error
		switch key {
		case "description":
			j.Description, err = d.str(p, v)
		case "repeat":
			j.Repeat, err = d.intMin(p, v, 1)
		case "warmup":
			j.Warmup, err = d.intMin(p, v, 0)
		case "cpus":
			j.CPUs, err = d.str(p, v)
		case "shield":
			j.Shield, err = d.str(p, v)
		case "fifo":
			j.FIFO, err = d.intMin(p, v, 1)
		case "timeout":
			j.Timeout, err = d.duration(p, v)
		case "order":
			if j.Order, err = d.str(p, v); err == nil && !oneOf(j.Order, Orders) {
				err = d.errf(p, "order: unknown order %q (one of %s)", j.Order, strings.Join(Orders, ", "))
			}
		case "seed":
			var n int
			n, err = d.intMin(p, v, 0)
			j.Seed = uint64(n)
		case "labels":
			j.Labels, err = d.scalarTable(p, v)
		case "monitors":
			j.Monitors, err = d.str(p, v)
		case "events":
			j.Events, err = d.str(p, v)
		case "counters":
			if j.Counters, err = d.str(p, v); err == nil && j.Counters != "on" && j.Counters != "none" {
				err = d.errf(p, "counters: unknown value %q (on or none)", j.Counters)
			}
		case "until_conclusive":
			j.UntilConclusive, err = d.bool(p, v)
		case "max_runs":
			j.MaxRuns, err = d.intMin(p, v, 1)
		case "set":
			j.Set, err = d.settings(p, v)
		case "profile":
			j.Profile, err = d.profile(p, v)
		case "funclatency":
			j.FuncLatency, err = d.funcs(p, v)
		case "funclatency_scope":
			if j.FuncScope, err = d.str(p, v); err == nil && !oneOf(j.FuncScope, counter.Scopes) {
				err = d.errf(p, "funclatency_scope: unknown scope %q (%s)", j.FuncScope, strings.Join(counter.Scopes, " or "))
			}
		case "workload":
			j.Workloads, err = d.workloads(p, v)
		case "variant":
			j.Variants, err = d.variants(p, v)
		case "matrix":
			j.Matrix, err = d.matrix(p, v)
		case "vm":
			j.VM, err = d.vm(p, v)
		default:
			err = d.unknown(p, []string{"description", "repeat", "warmup", "cpus", "shield", "fifo", "timeout", "order", "seed", "labels",
				"monitors", "events", "counters", "until_conclusive", "max_runs", "set", "profile", "funclatency", "funclatency_scope", "workload", "variant", "matrix", "vm"})
		}
		if err != nil {
			return nil, err
		}
		j.given[key] = true
	}
	if err := j.check(d); err != nil {
		return nil, err
	}
	return j, nil
}

// check validates what involves more than one key.
func (j *Job) check(d *decoder) error {
	if j.MaxRuns > 0 && j.MaxRuns < j.Repeat {
		return d.errf(keyPath{"max_runs"}, "max_runs: %d is fewer than repeat %d", j.MaxRuns, j.Repeat)
	}
	booted := 0
	for _, v := range j.Variants {
		if v.Booted() {
			booted++
		}
	}
	if booted > 0 && booted < len(j.Variants) {
		return &Error{File: j.File, Line: d.ix.line(keyPath{"variant"}), Msg: "variant: either every variant boots a kernel (kernel, append) or none does"}
	}
	if booted > 0 && len(j.Set) > 0 {
		return d.errf(keyPath{"set"}, "set: knobs cannot be set on the host for kernels booted in a VM (put boot parameters in append)")
	}
	for _, a := range j.Matrix {
		if a.Knob == nil {
			continue
		}
		if booted > 0 {
			return &Error{File: j.File, Line: d.ix.line(keyPath{"matrix", a.Key}), Msg: fmt.Sprintf("matrix.%s: a knob axis cannot be set on the host for kernels booted in a VM", a.Key)}
		}
		for _, v := range j.Variants {
			for _, st := range v.Set {
				if st.Knob.Path == a.Knob.Path {
					return &Error{File: j.File, Line: d.ix.line(keyPath{"matrix", a.Key}), Msg: fmt.Sprintf("matrix.%s: variant %s sets the same knob", a.Key, v.Name)}
				}
			}
		}
	}
	return nil
}

// decoder turns the generic TOML tree into a Job, with the line of every
// key at hand for errors.
type decoder struct {
	file string
	src  []string
	ix   lineIndex
}

func (d *decoder) errf(p keyPath, format string, args ...any) error {
	return &Error{File: d.file, Line: d.ix.line(p), Msg: fmt.Sprintf(format, args...)}
}

func (d *decoder) where(p keyPath) string {
	if l := d.ix.line(p); l > 0 {
		return fmt.Sprintf("%s:%d", d.file, l)
	}
	return d.file
}

// elemLine finds the line of an array element by its text, from its key's
// line on: an array may span lines.
func (d *decoder) elemLine(p keyPath, text string) int {
	l := d.ix.line(p)
	if l == 0 {
		return 0
	}
	for i := l - 1; i < len(d.src) && i < l+200; i++ {
		if strings.Contains(d.src[i], text) {
			return i + 1
		}
	}
	return l
}

// ordered returns the keys of a table in the order of their lines, so the
// first error reported is the first in the file.
func (d *decoder) ordered(parent keyPath, m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(a, b int) bool {
		la, lb := d.ix.line(parent.child(keys[a])), d.ix.line(parent.child(keys[b]))
		if la != lb {
			return la < lb
		}
		return keys[a] < keys[b]
	})
	return keys
}

func (d *decoder) unknown(p keyPath, known []string) error {
	return d.errf(p, "unknown key %s (known here: %s)", p.display(), strings.Join(known, ", "))
}

// typeName names a decoded TOML value's type as the TOML spec does.
func typeName(v any) string {
	switch v.(type) {
	case string:
		return "string"
	case int64:
		return "integer"
	case float64:
		return "float"
	case bool:
		return "boolean"
	case []any, []map[string]any:
		return "array"
	case map[string]any:
		return "table"
	}
	return "datetime"
}

func (d *decoder) wrongType(p keyPath, want string, v any) error {
	return d.errf(p, "%s: want %s, got %s", p.display(), want, typeName(v))
}

func (d *decoder) str(p keyPath, v any) (string, error) {
	s, ok := v.(string)
	if !ok {
		return "", d.wrongType(p, "a string", v)
	}
	return s, nil
}

func (d *decoder) bool(p keyPath, v any) (bool, error) {
	b, ok := v.(bool)
	if !ok {
		return false, d.wrongType(p, "true or false", v)
	}
	return b, nil
}

func (d *decoder) intMin(p keyPath, v any, lo int) (int, error) {
	n, ok := v.(int64)
	if !ok {
		return 0, d.wrongType(p, "an integer", v)
	}
	if n < int64(lo) || n > 1<<31 {
		return 0, d.errf(p, "%s: %d out of range (at least %d)", p.display(), n, lo)
	}
	return int(n), nil
}

func (d *decoder) duration(p keyPath, v any) (time.Duration, error) {
	s, ok := v.(string)
	if !ok {
		return 0, d.wrongType(p, `a duration string such as "10m"`, v)
	}
	t, err := time.ParseDuration(s)
	if err != nil || t < 0 {
		return 0, d.errf(p, "%s: bad duration %q (such as 30s or 10m)", p.display(), s)
	}
	return t, nil
}

// scalar turns a string, integer, float or boolean into its text.
func (d *decoder) scalar(p keyPath, v any) (string, error) {
	switch x := v.(type) {
	case string:
		return x, nil
	case int64:
		return strconv.FormatInt(x, 10), nil
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64), nil
	case bool:
		return strconv.FormatBool(x), nil
	}
	return "", d.wrongType(p, "a string, number or boolean", v)
}

func (d *decoder) table(p keyPath, v any) (map[string]any, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, d.wrongType(p, "a table", v)
	}
	return m, nil
}

func (d *decoder) scalarTable(p keyPath, v any) (map[string]string, error) {
	m, err := d.table(p, v)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, k := range d.ordered(p, m) {
		s, err := d.scalar(p.child(k), m[k])
		if err != nil {
			return nil, err
		}
		out[k] = s
	}
	return out, nil
}

// funcs reads kernel function names: "f,g" or ["f", "g"].
func (d *decoder) funcs(p keyPath, v any) ([]string, error) {
	list, ok := v.(string)
	if !ok {
		names, err := d.strList(p, v)
		if err != nil {
			return nil, d.wrongType(p, "a string or an array of strings", v)
		}
		list = strings.Join(names, ",")
	}
	fs, err := counter.ParseFuncs(list)
	if err != nil {
		return nil, d.errf(p, "%s: %v", p.display(), err)
	}
	return fs, nil
}

func (d *decoder) strList(p keyPath, v any) ([]string, error) {
	a, ok := v.([]any)
	if !ok {
		return nil, d.wrongType(p, "an array of strings", v)
	}
	var out []string
	for i, e := range a {
		s, ok := e.(string)
		if !ok {
			return nil, d.wrongType(p.child("["+strconv.Itoa(i)+"]"), "a string", e)
		}
		out = append(out, s)
	}
	return out, nil
}

// settings reads an array of knob settings, KNOB=VALUE each.
func (d *decoder) settings(p keyPath, v any) ([]knob.Setting, error) {
	list, err := d.strList(p, v)
	if err != nil {
		return nil, err
	}
	var out []knob.Setting
	for _, s := range list {
		st, err := knob.Parse(s)
		if err != nil {
			return nil, &Error{File: d.file, Line: d.elemLine(p, s), Msg: fmt.Sprintf("%s: %v", p.display(), err)}
		}
		out = append(out, st)
	}
	return out, nil
}

// tables reads an array of tables ([[name]]).
func (d *decoder) tables(p keyPath, v any) ([]map[string]any, error) {
	switch a := v.(type) {
	case []map[string]any:
		return a, nil
	case []any:
		var out []map[string]any
		for i, e := range a {
			m, ok := e.(map[string]any)
			if !ok {
				return nil, d.wrongType(p.child("["+strconv.Itoa(i)+"]"), "a table", e)
			}
			out = append(out, m)
		}
		return out, nil
	}
	return nil, d.wrongType(p, "an array of tables ([["+p.display()+"]])", v)
}

func (d *decoder) workloads(p keyPath, v any) ([]Workload, error) {
	ts, err := d.tables(p, v)
	if err != nil {
		return nil, err
	}
	var out []Workload
	for i, m := range ts {
		ep := p.child("[" + strconv.Itoa(i) + "]")
		w := Workload{Where: d.where(ep), Params: map[string]string{}}
		for _, k := range d.ordered(ep, m) {
			kp := ep.child(k)
			switch k {
			case "name":
				w.Name, err = d.str(kp, m[k])
			case "params":
				w.Params, err = d.scalarTable(kp, m[k])
			default:
				err = d.unknown(kp, []string{"name", "params"})
			}
			if err != nil {
				return nil, err
			}
		}
		if w.Name == "" {
			return nil, d.errf(ep, "%s: no name (the workload, as kdelta list names it)", ep.display())
		}
		w.Given = slices.Sorted(maps.Keys(w.Params))
		out = append(out, w)
	}
	return out, nil
}

func (d *decoder) variants(p keyPath, v any) ([]Variant, error) {
	ts, err := d.tables(p, v)
	if err != nil {
		return nil, err
	}
	var out []Variant
	seen := map[string]bool{}
	for i, m := range ts {
		ep := p.child("[" + strconv.Itoa(i) + "]")
		vr := Variant{Where: d.where(ep)}
		for _, k := range d.ordered(ep, m) {
			kp := ep.child(k)
			switch k {
			case "name":
				vr.Name, err = d.str(kp, m[k])
				if err == nil && !variantName.MatchString(vr.Name) {
					err = d.errf(kp, "%s: %q is not a variant name (letters, digits, _ . + -)", kp.display(), vr.Name)
				}
			case "set":
				vr.Set, err = d.settings(kp, m[k])
			case "kernel":
				vr.Kernel, err = d.str(kp, m[k])
			case "append":
				vr.Append, err = d.str(kp, m[k])
			case "labels":
				vr.Labels, err = d.scalarTable(kp, m[k])
			default:
				err = d.unknown(kp, []string{"name", "set", "kernel", "append", "labels"})
			}
			if err != nil {
				return nil, err
			}
		}
		if vr.Name == "" {
			return nil, d.errf(ep, "%s: no name", ep.display())
		}
		if seen[vr.Name] {
			return nil, d.errf(ep.child("name"), "%s: a variant named %s comes earlier", ep.display(), vr.Name)
		}
		seen[vr.Name] = true
		out = append(out, vr)
	}
	return out, nil
}

func (d *decoder) matrix(p keyPath, v any) ([]Axis, error) {
	m, err := d.table(p, v)
	if err != nil {
		return nil, err
	}
	var out []Axis
	for _, k := range d.ordered(p, m) {
		kp := p.child(k)
		a, ok := m[k].([]any)
		if !ok {
			return nil, d.wrongType(kp, "an array of values", m[k])
		}
		var vals []string
		for i, e := range a {
			s, err := d.scalar(kp.child("["+strconv.Itoa(i)+"]"), e)
			if err != nil {
				return nil, err
			}
			vals = append(vals, s)
		}
		ax, err := NewAxis(k, vals)
		if err != nil {
			return nil, d.errf(kp, "matrix: %v", err)
		}
		ax.Where = d.where(kp)
		out = append(out, ax)
	}
	return out, nil
}

func (d *decoder) profile(p keyPath, v any) (*Profile, error) {
	m, err := d.table(p, v)
	if err != nil {
		return nil, err
	}
	pr := &Profile{Runs: 1, Event: "cycles"}
	for _, k := range d.ordered(p, m) {
		kp := p.child(k)
		switch k {
		case "runs":
			pr.Runs, err = d.intMin(kp, m[k], 1)
		case "call_graph":
			pr.CallGraph, err = d.bool(kp, m[k])
		case "event":
			pr.Event, err = d.str(kp, m[k])
		case "system_wide":
			pr.SystemWide, err = d.bool(kp, m[k])
		case "freq":
			pr.Freq, err = d.intMin(kp, m[k], 0)
		default:
			err = d.unknown(kp, []string{"runs", "call_graph", "event", "system_wide", "freq"})
		}
		if err != nil {
			return nil, err
		}
	}
	return pr, nil
}

func (d *decoder) vm(p keyPath, v any) (*VM, error) {
	m, err := d.table(p, v)
	if err != nil {
		return nil, err
	}
	out := &VM{Boots: 1}
	for _, k := range d.ordered(p, m) {
		kp := p.child(k)
		switch k {
		case "boots":
			out.Boots, err = d.intMin(kp, m[k], 1)
		case "cpus":
			out.CPUs, err = d.intMin(kp, m[k], 1)
		case "mem":
			out.Mem, err = d.str(kp, m[k])
		case "accel":
			if out.Accel, err = d.str(kp, m[k]); err == nil && !oneOf(out.Accel, []string{"auto", "kvm", "tcg"}) {
				err = d.errf(kp, "vm.accel: unknown value %q (auto, kvm or tcg)", out.Accel)
			}
		case "modules":
			out.Modules, err = d.str(kp, m[k])
		case "timeout":
			out.Timeout, err = d.duration(kp, m[k])
		case "boot_deadline":
			out.BootDeadline, err = d.duration(kp, m[k])
		case "until_conclusive":
			out.UntilConclusive, err = d.bool(kp, m[k])
		case "max_boots":
			out.MaxBoots, err = d.intMin(kp, m[k], 1)
		default:
			err = d.unknown(kp, []string{"boots", "cpus", "mem", "accel", "modules", "timeout", "boot_deadline", "until_conclusive", "max_boots"})
		}
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

func oneOf(s string, set []string) bool {
	for _, x := range set {
		if s == x {
			return true
		}
	}
	return false
}
