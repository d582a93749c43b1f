package profile

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/google/pprof/profile"

	"github.com/kdelta/kdelta/internal/outfile"
	"github.com/kdelta/kdelta/internal/result"
)

// Pprof converts a profile to pprof's format: one sample per call stack
// when the profile has them (recorded with -g), otherwise one per symbol
// table row, so go tool pprof and flame-graph tools can open it. Values
// are samples; a table without sample counts gives each row its share of
// the profile's total samples, or, with no total either, its share in
// hundredths of a percent.
func Pprof(p *result.Profile) (*profile.Profile, error) {
	if p.Unavailable != "" {
		return nil, fmt.Errorf("no profile: %s", p.Unavailable)
	}
	if len(p.Stacks) == 0 && len(p.Symbols) == 0 {
		return nil, errors.New("empty profile: no symbols and no stacks")
	}
	event := p.Event
	if event == "" {
		event = "samples"
	}
	out := &profile.Profile{
		SampleType: []*profile.ValueType{{Type: "samples", Unit: "count"}},
		PeriodType: &profile.ValueType{Type: event, Unit: "count"},
		Period:     1,
	}
	b := &pprofBuilder{p: out, loc: map[result.ProfileFrame]*profile.Location{}, mp: map[string]*profile.Mapping{}}
	if len(p.Stacks) > 0 {
		for _, st := range p.Stacks {
			if st.Samples <= 0 || len(st.Frames) == 0 {
				continue
			}
			s := &profile.Sample{Value: []int64{st.Samples}}
			for _, f := range st.Frames {
				s.Location = append(s.Location, b.location(f))
			}
			out.Sample = append(out.Sample, s)
		}
	} else {
		counted := true
		for _, s := range p.Symbols {
			counted = counted && (s.Samples > 0 || s.Overhead == 0)
		}
		if !counted && p.Samples == 0 {
			out.SampleType[0] = &profile.ValueType{Type: "overhead", Unit: "hundredths of a percent"}
		}
		for _, s := range p.Symbols {
			v := s.Samples
			switch {
			case !counted && p.Samples > 0:
				v = int64(math.Round(s.Overhead / 100 * float64(p.Samples)))
			case !counted:
				v = int64(math.Round(s.Overhead * 100))
			}
			if v <= 0 {
				continue
			}
			name := s.Symbol
			if name == "" {
				name = s.DSO
			}
			ps := &profile.Sample{Value: []int64{v}, Location: []*profile.Location{b.location(result.ProfileFrame{Symbol: name, DSO: s.DSO})}}
			if s.Command != "" {
				ps.Label = map[string][]string{"comm": {s.Command}}
			}
			out.Sample = append(out.Sample, ps)
		}
	}
	if err := out.CheckValid(); err != nil {
		return nil, fmt.Errorf("pprof export: %w", err)
	}
	return out, nil
}

// WritePprof writes the profiles of gs to w as one gzipped pprof protocol
// buffer: each converted by Pprof, then merged by pprof's Merge (the
// samples of the same stack add up). A profile Pprof cannot convert is
// left out, with why in skipped; when none is left, nothing is written.
// Errors name the file read, name.
func WritePprof(w io.Writer, name string, gs []Group) (skipped []error, err error) {
	var pps []*profile.Profile
	for _, g := range gs {
		for _, p := range g.Profiles {
			pp, err := Pprof(p)
			if err != nil {
				skipped = append(skipped, fmt.Errorf("%s: %w", g.Name, err))
				continue
			}
			pps = append(pps, pp)
		}
	}
	if len(pps) == 0 {
		return skipped, fmt.Errorf("%s: no profile to export", name)
	}
	merged, err := profile.Merge(pps)
	if err != nil {
		return skipped, fmt.Errorf("merge profiles of %s: %w", name, err)
	}
	return skipped, merged.Write(w)
}

type pprofBuilder struct {
	p   *profile.Profile
	loc map[result.ProfileFrame]*profile.Location
	mp  map[string]*profile.Mapping
}

// location returns the one location of a function in an object: kdelta
// keeps symbols, not addresses, so each function is one location.
func (b *pprofBuilder) location(f result.ProfileFrame) *profile.Location {
	if l := b.loc[f]; l != nil {
		return l
	}
	m := b.mp[f.DSO]
	if m == nil {
		m = &profile.Mapping{ID: uint64(len(b.p.Mapping) + 1), File: f.DSO, HasFunctions: true}
		b.mp[f.DSO] = m
		b.p.Mapping = append(b.p.Mapping, m)
	}
	fn := &profile.Function{ID: uint64(len(b.p.Function) + 1), Name: f.Symbol, SystemName: f.Symbol, Filename: f.DSO}
	b.p.Function = append(b.p.Function, fn)
	l := &profile.Location{ID: uint64(len(b.p.Location) + 1), Mapping: m, Line: []profile.Line{{Function: fn}}}
	b.loc[f] = l
	b.p.Location = append(b.p.Location, l)
	return l
}

// WritePprofFile is WritePprof into the file path, written whole once the
// profiles are merged, so a failed export leaves no file behind.
func WritePprofFile(path, name string, gs []Group) (skipped []error, err error) {
	var buf bytes.Buffer
	if skipped, err = WritePprof(&buf, name, gs); err != nil {
		return skipped, err
	}
	if err := outfile.WriteBytes(path, buf.Bytes()); err != nil {
		return skipped, fmt.Errorf("-o %s: %w", path, err)
	}
	return skipped, nil
}

// ExportPprof writes the profiles ref names (see Open) to the pprof file
// output (profile pprof); skipped are the profiles left out, and why.
func ExportPprof(ctx context.Context, ref, only, output string, src Source) (skipped []error, err error) {
	if output == "" {
		return nil, errors.New("profile pprof: -o/--output is required")
	}
	gs, err := Open(ctx, ref, only, src)
	if err != nil {
		return nil, err
	}
	return WritePprofFile(output, ref, gs)
}
