package job

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/kdelta/kdelta/internal/knob"
)

// ParseVariant reads --variant NAME:KNOB=V[,KNOB=V...]. "NAME:" alone is
// the machine as it is: every knob the other variants set keeps its own
// value.
func ParseVariant(s string) (Variant, error) {
	name, rest, ok := strings.Cut(s, ":")
	if !ok {
		return Variant{}, fmt.Errorf("%q is not NAME:KNOB=VALUE[,KNOB=VALUE...]", s)
	}
	if !variantName.MatchString(name) {
		return Variant{}, fmt.Errorf("%q is not a variant name (letters, digits, _ . + -)", name)
	}
	v := Variant{Name: name, Where: "--variant " + name}
	if strings.TrimSpace(rest) == "" {
		return v, nil
	}
	set, err := knob.ParseList(rest)
	if err != nil {
		return Variant{}, fmt.Errorf("variant %s: %w", name, err)
	}
	seen := map[string]string{}
	for _, st := range set {
		if prev, ok := seen[st.Knob.Path]; ok {
			return Variant{}, fmt.Errorf("variant %s sets %s twice (%s and %s): give each knob once", name, st.Knob.Name, prev, st)
		}
		seen[st.Knob.Path] = st.String()
	}
	v.Set = set
	return v, nil
}

// ParseAxis reads --matrix KEY=V1,V2,...
func ParseAxis(s string) (Axis, error) {
	k, vs, ok := strings.Cut(s, "=")
	if !ok || strings.TrimSpace(k) == "" {
		return Axis{}, fmt.Errorf("%q is not KEY=VALUE[,VALUE]", s)
	}
	a, err := NewAxis(strings.TrimSpace(k), strings.Split(vs, ","))
	if err != nil {
		return Axis{}, err
	}
	a.Where = "--matrix " + a.Key
	return a, nil
}

var paramName = regexp.MustCompile(`^[a-z_][a-z0-9_]*$`)

// NewAxis makes a matrix axis: a knob when key names one (smt, a path,
// sysctl.NAME), else a workload parameter, checked against the workloads
// when the matrix is expanded.
func NewAxis(key string, values []string) (Axis, error) {
	if len(values) == 0 {
		return Axis{}, fmt.Errorf("%s: no values", key)
	}
	seen := map[string]bool{}
	for _, v := range values {
		if v == "" {
			return Axis{}, fmt.Errorf("%s: empty value", key)
		}
		if seen[v] {
			return Axis{}, fmt.Errorf("%s: value %s twice", key, v)
		}
		seen[v] = true
	}
	a := Axis{Key: key, Values: values}
	k, err := knob.Lookup(key)
	switch {
	case err == nil:
		for _, v := range values {
			if _, err := knob.Parse(key + "=" + v); err != nil {
				return Axis{}, err
			}
		}
		a.Knob = &k
	case errors.Is(err, knob.ErrUnknown) && paramName.MatchString(key):
		// A workload parameter.
	default:
		return Axis{}, err
	}
	return a, nil
}
