package job

import (
	"fmt"
	"sort"
	"strings"

	"github.com/kdelta/kdelta/internal/knob"
	"github.com/kdelta/kdelta/internal/workload"
)

// Specs resolves the job's workloads against the registry; an unknown
// workload or parameter is an error at its [[workload]].
func (j *Job) Specs() ([]workload.Spec, error) {
	var specs []workload.Spec
	for _, w := range j.Workloads {
		wl, ok := workload.Lookup(w.Name)
		if !ok {
			return nil, fmt.Errorf("%s: unknown workload %q (known: %s)", w.Where, w.Name, strings.Join(workload.Names(), ", "))
		}
		vals, err := workload.Resolve(wl, w.Params)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", w.Where, err)
		}
		specs = append(specs, workload.Spec{Workload: wl, Values: vals})
	}
	return specs, nil
}

// ExpandParams sweeps the parameter axes: each spec becomes one spec per
// combination of the axes its workload has (lkp's split-job), the first
// axis varying slowest. An axis that is no workload's parameter is an
// error, as is a value the parameter does not take.
func ExpandParams(specs []workload.Spec, axes []Axis) ([]workload.Spec, error) {
	var params []Axis
	for _, a := range axes {
		if a.Knob != nil {
			continue
		}
		used := false
		for _, sp := range specs {
			used = used || hasParam(sp.Workload, a.Key)
		}
		if !used {
			var names []string
			for _, sp := range specs {
				names = append(names, sp.Workload.Name())
			}
			return nil, fmt.Errorf("%s: %s is neither a knob nor a parameter of %s", a.Where, a.Key, strings.Join(names, ", "))
		}
		params = append(params, a)
	}
	if len(params) == 0 {
		return specs, nil
	}
	var out []workload.Spec
	seen := map[string]bool{}
	for _, sp := range specs {
		var mine []Axis
		for _, a := range params {
			if hasParam(sp.Workload, a.Key) {
				mine = append(mine, a)
			}
		}
		for _, point := range product(mine) {
			given := map[string]string{}
			for k, v := range sp.Values {
				given[k] = v
			}
			for i, a := range mine {
				given[a.Key] = point[i]
			}
			vals, err := workload.Resolve(sp.Workload, given)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", mine[0].Where, err)
			}
			ns := workload.Spec{Workload: sp.Workload, Values: vals}
			if key := specKey(ns); !seen[key] {
				seen[key] = true
				out = append(out, ns)
			}
		}
	}
	return out, nil
}

func hasParam(w workload.Workload, name string) bool {
	for _, p := range w.Params() {
		if p.Name == name {
			return true
		}
	}
	return false
}

func specKey(sp workload.Spec) string {
	var b strings.Builder
	b.WriteString(sp.Workload.Name())
	for _, p := range sp.Workload.Params() {
		b.WriteString("\x00" + p.Name + "=" + sp.Values[p.Name])
	}
	return b.String()
}

// product lists every combination of the axes' values, the first axis
// varying slowest; one empty combination when there is no axis.
func product(axes []Axis) [][]string {
	out := [][]string{nil}
	for _, a := range axes {
		var next [][]string
		for _, prefix := range out {
			for _, v := range a.Values {
				next = append(next, append(append([]string(nil), prefix...), v))
			}
		}
		out = next
	}
	return out
}

// A Cell is one arm of the experiment as it runs: a variant at one point
// of the knob axes. Each cell gets a result set of its own.
type Cell struct {
	// Name is the variant's name and the knob axes' values
	// ("on,smt=off"); it names the cell's column and file.
	Name    string
	Variant string
	// Point holds the knob axes' values, in axis order.
	Point []Assign
	// Settings are what the cell's knobs are given: the session-wide
	// ones, the variant's, the knob axes'.
	Settings []knob.Setting
	// Labels go on the cell's result set: variant=NAME and each knob's
	// key=value.
	Labels map[string]string
}

// Name is how the axis is shown: a knob's key (rcutree.PARAM for a module
// parameter's path), else the parameter's name.
func (a Axis) Name() string {
	if a.Knob != nil {
		return a.Knob.Key
	}
	return a.Key
}

// An Assign is one key's value.
type Assign struct{ Key, Value string }

// Cells expands variants and the knob axes into cells: for each point of
// the knob axes (the first varying slowest), every variant in order, so
// that one round of the cells in order is A B A B ... within each point.
// Without variants there is one unnamed variant.
func Cells(global []knob.Setting, variants []Variant, axes []Axis) []Cell {
	var knobAxes []Axis
	for _, a := range axes {
		if a.Knob != nil {
			knobAxes = append(knobAxes, a)
		}
	}
	if len(variants) == 0 {
		variants = []Variant{{}}
	}
	var cells []Cell
	for _, point := range product(knobAxes) {
		for _, v := range variants {
			c := Cell{Variant: v.Name, Labels: map[string]string{}}
			var name []string
			if v.Name != "" {
				name = append(name, v.Name)
				c.Labels["variant"] = v.Name
			}
			c.Settings = append(append(c.Settings, global...), v.Set...)
			for i, a := range knobAxes {
				c.Point = append(c.Point, Assign{Key: a.Key, Value: point[i]})
				c.Settings = append(c.Settings, knob.Setting{Knob: *a.Knob, Value: point[i]})
				name = append(name, a.Name()+"="+point[i])
			}
			for k, val := range v.Labels {
				c.Labels[k] = val
			}
			for _, st := range c.Settings {
				c.Labels[st.Knob.Key] = st.Value
			}
			c.Name = strings.Join(name, ",")
			cells = append(cells, c)
		}
	}
	return cells
}

// KnobGroups returns the cells' settings, one group per cell, as
// knob.Open and knob.Session.Check take them.
func KnobGroups(cells []Cell) [][]knob.Setting {
	var gs [][]knob.Setting
	for _, c := range cells {
		gs = append(gs, c.Settings)
	}
	return gs
}

// Spec writes the workload as the command line takes it
// (messaging:groups=20,mode=thread), quoting values that hold a comma or a
// quote, so that kdelta vm can hand a job file's workloads to the guest.
func (w Workload) Spec() string {
	keys := make([]string, 0, len(w.Params))
	for k := range w.Params {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		v := w.Params[k]
		if strings.ContainsAny(v, `,'"`) {
			q := "'"
			if strings.Contains(v, "'") {
				q = `"`
			}
			v = q + v + q
		}
		parts = append(parts, k+"="+v)
	}
	if len(parts) == 0 {
		return w.Name
	}
	return w.Name + ":" + strings.Join(parts, ",")
}
