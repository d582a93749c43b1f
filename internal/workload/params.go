package workload

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Kind is the type of a parameter's value.
type Kind int

// Parameter kinds.
const (
	String Kind = iota
	Int
	Bool
	Duration
	Float
)

func (k Kind) String() string {
	return [...]string{"string", "int", "bool", "duration", "float"}[k]
}

// A Param is one parameter a workload accepts.
type Param struct {
	Name    string
	Kind    Kind
	Default string
	Doc     string
	// Choices, when set, are the only values accepted.
	Choices []string
	// Min is the smallest value an Int parameter takes.
	Min int64
}

// Values are a workload's parameters after parsing: every declared
// parameter is present, defaults filled in.
type Values map[string]string

// String returns parameter name.
func (v Values) String(name string) string { return v[name] }

// Int returns parameter name; it was validated at parse time.
func (v Values) Int(name string) int {
	n, _ := strconv.ParseInt(v[name], 10, 64)
	return int(n)
}

// Bool returns parameter name.
func (v Values) Bool(name string) bool {
	b, _ := strconv.ParseBool(v[name])
	return b
}

// Duration returns parameter name.
func (v Values) Duration(name string) time.Duration {
	d, _ := time.ParseDuration(v[name])
	return d
}

// Float returns parameter name.
func (v Values) Float(name string) float64 {
	f, _ := strconv.ParseFloat(v[name], 64)
	return f
}

// A Spec is a workload with its parameters, as given on the command line
// (`pipe:mode=thread,loops=1000`).
type Spec struct {
	Workload Workload
	Values   Values
	// Given are the parameters the spec's text names (ParseSpec), the
	// rest of Values being defaults: a --matrix axis may not sweep one.
	Given []string
}

// ParseSpec parses "name[:k=v,k=v]" against the registry. Values may be
// quoted with single or double quotes to hold commas
// (`command:cmd='stress-ng --kill 1',shell=false`). A parameter given twice
// is an error, not the last one winning.
func ParseSpec(s string) (Spec, error) {
	name, rest, _ := strings.Cut(s, ":")
	w, ok := Lookup(name)
	if !ok {
		return Spec{}, fmt.Errorf("unknown workload %q (known: %s)", name, strings.Join(Names(), ", "))
	}
	pairs, err := splitPairs(rest)
	if err != nil {
		return Spec{}, fmt.Errorf("workload %s: %w", name, err)
	}
	given := map[string]string{}
	for _, p := range pairs {
		k, v, ok := strings.Cut(p, "=")
		if !ok {
			return Spec{}, fmt.Errorf("workload %s: parameter %q is not key=value", name, p)
		}
		if _, dup := given[k]; dup {
			return Spec{}, fmt.Errorf("workload %s: parameter %s given twice in %q", name, k, s)
		}
		given[k] = unquote(v)
	}
	vals, err := Resolve(w, given)
	if err != nil {
		return Spec{}, err
	}
	return Spec{Workload: w, Values: vals, Given: slices.Sorted(maps.Keys(given))}, nil
}

// Resolve checks given against w's declared parameters and fills in the
// defaults.
func Resolve(w Workload, given map[string]string) (Values, error) {
	decl := map[string]Param{}
	var names []string
	for _, p := range w.Params() {
		decl[p.Name] = p
		names = append(names, p.Name)
	}
	vals := Values{}
	for k, v := range given {
		p, ok := decl[k]
		if !ok {
			return nil, fmt.Errorf("workload %s: unknown parameter %q (known: %s)", w.Name(), k, strings.Join(names, ", "))
		}
		if err := p.check(v); err != nil {
			return nil, fmt.Errorf("workload %s: parameter %s: %w", w.Name(), k, err)
		}
		vals[k] = v
	}
	for _, p := range w.Params() {
		if _, ok := vals[p.Name]; !ok {
			vals[p.Name] = p.Default
		}
	}
	if a, ok := w.(AutoResolver); ok {
		a.ResolveAuto(vals)
	}
	if v, ok := w.(Validator); ok {
		if err := v.Validate(vals); err != nil {
			return nil, fmt.Errorf("workload %s: %w", w.Name(), err)
		}
	}
	return vals, nil
}

func (p Param) check(v string) error {
	if len(p.Choices) > 0 {
		for _, c := range p.Choices {
			if v == c {
				return nil
			}
		}
		return fmt.Errorf("bad value %q (one of %s)", v, strings.Join(p.Choices, "|"))
	}
	switch p.Kind {
	case Int:
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return fmt.Errorf("bad value %q (want an integer)", v)
		}
		if n < p.Min {
			return fmt.Errorf("bad value %q (at least %d)", v, p.Min)
		}
	case Bool:
		if _, err := strconv.ParseBool(v); err != nil {
			return fmt.Errorf("bad value %q (want true or false)", v)
		}
	case Duration:
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 {
			return fmt.Errorf("bad value %q (want a duration such as 5s)", v)
		}
	case Float:
		if _, err := strconv.ParseFloat(v, 64); err != nil {
			return fmt.Errorf("bad value %q (want a number)", v)
		}
	}
	return nil
}

// splitPairs splits "a=1,b='x,y',c=2" at commas outside quotes.
func splitPairs(s string) ([]string, error) {
	var out []string
	var cur strings.Builder
	var quote rune
	for _, r := range s {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			}
			cur.WriteRune(r)
		case r == '\'' || r == '"':
			quote = r
			cur.WriteRune(r)
		case r == ',':
			out = append(out, cur.String())
			cur.Reset()
		default:
			cur.WriteRune(r)
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("unterminated quote in %q", s)
	}
	if cur.Len() > 0 || len(out) > 0 {
		out = append(out, cur.String())
	}
	for _, p := range out {
		if p == "" {
			return nil, fmt.Errorf("empty parameter in %q", s)
		}
	}
	return out, nil
}

func unquote(v string) string {
	if len(v) >= 2 && (v[0] == '\'' || v[0] == '"') && v[len(v)-1] == v[0] {
		return v[1 : len(v)-1]
	}
	return v
}
