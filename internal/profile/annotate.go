package profile

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/kdelta/kdelta/internal/result"
)

// An Annotation is one symbol's annotation in what a reference names:
// the benchmark it was profiled in, and its lines with their samples,
// summed over the benchmark's profiles.
type Annotation struct {
	// Ref is the reference as the user gave it; Benchmark the profiled
	// benchmark (workload:params), or the file for a perf.data or text.
	Ref, Benchmark string
	// Event is the event sampled; Profiles how many profiles the lines
	// add up.
	Event    string
	Profiles int
	result.ProfileAnnotation
}

// AnnotateOptions say where to look for the symbol and how to annotate
// a perf.data.
type AnnotateOptions struct {
	// Only keeps the benchmarks whose name starts with it (--workload).
	Only string
	// Vmlinux is the image to disassemble the symbol from: for a perf.data
	// reference, perf annotate's --vmlinux; for an annotation kept with
	// offsets only (a kernel perf could not disassemble at record time),
	// objdump's input, whose instructions must start at every sampled
	// offset.
	Vmlinux string
	// Perf is the perf binary for a perf.data reference; "" looks it up.
	Perf string
}

// ErrNotAnnotated says a profile was recorded before kdelta kept
// annotations with its profiles.
var ErrNotAnnotated = errors.New("recorded before kdelta kept annotations; record it again with kdelta run --profile (or annotate its perf.data)")

// Annotate returns symbol's annotation in ref: a kdelta result set, file
// or store id (the annotations kept at record time), a perf.data file
// (perf annotate run now, with o.Vmlinux for kernel symbols), or the text
// of perf annotate --stdio. A symbol in none of ref's profiles is an
// error that names the nearest symbols there are.
func Annotate(ctx context.Context, ref, symbol string, o AnnotateOptions, src Source) (*Annotation, error) {
	if isPerfData(ref) {
		return annotateData(ref, symbol, o)
	}
	if fi, err := os.Stat(ref); err == nil && !fi.IsDir() {
		// A file is read once, bounded, and given up on an interrupt
		// (a FIFO no one writes, /dev/zero), as Load reads it.
		data, err := result.ReadInput(ctx, ref, result.MaxSetBytes, "a profile")
		if err != nil {
			return nil, err
		}
		if !bytes.HasPrefix(bytes.TrimSpace(data), []byte("{")) {
			if as, perr := ParseAnnotate(ref, data); perr == nil {
				return pick(ref, ref, symbol, as)
			}
		}
		gs, err := Decode(ref, data)
		if err == nil {
			gs, err = keep(ref, o.Only, gs)
		}
		if err != nil {
			return nil, err
		}
		return annotateGroups(ref, symbol, o, gs)
	}
	gs, err := Open(ctx, ref, o.Only, src)
	if err != nil {
		return nil, err
	}
	return annotateGroups(ref, symbol, o, gs)
}

// AnnotateSet is Annotate of a result set already read (kdelta explain
// has its sets in hand); name is what errors and the report call it.
func AnnotateSet(name string, set *result.Set, symbol string, o AnnotateOptions) (*Annotation, error) {
	gs, err := FromSet(name, set)
	if err != nil {
		return nil, err
	}
	var kept []Group
	for _, g := range gs {
		if strings.HasPrefix(g.Name, o.Only) {
			kept = append(kept, g)
		}
	}
	if len(kept) == 0 {
		return nil, fmt.Errorf("--workload: no profiled benchmark in %s starts with %q", name, o.Only)
	}
	return annotateGroups(name, symbol, o, kept)
}

// annotateGroups finds symbol in the first of gs whose profiles hold its
// annotation.
func annotateGroups(ref, symbol string, o AnnotateOptions, gs []Group) (*Annotation, error) {
	var names []string
	recorded, taken, unavailable := false, false, ""
	for _, g := range gs {
		var found []*result.ProfileAnnotation
		var event string
		for _, p := range g.Profiles {
			recorded = recorded || p.Annotated
			taken = taken || p.Source == "perf record" && p.Unavailable == ""
			if p.Unavailable != "" {
				unavailable = p.Unavailable
			}
			for i := range p.Annotations {
				if a := &p.Annotations[i]; a.Symbol == symbol {
					found, event = append(found, a), p.Event
				}
			}
		}
		if len(found) > 0 {
			an := &Annotation{Ref: ref, Benchmark: g.Name, Event: event, Profiles: len(found), ProfileAnnotation: merge(found)}
			if o.Vmlinux != "" && an.NoText != "" {
				if err := withText(&an.ProfileAnnotation, o.Vmlinux); err != nil {
					return nil, fmt.Errorf("--vmlinux: %w", err)
				}
			}
			return an, nil
		}
		for _, p := range g.Profiles {
			for _, s := range p.Symbols {
				names = append(names, s.Symbol)
			}
		}
	}
	switch {
	case !recorded && !taken && unavailable != "":
		return nil, fmt.Errorf("%s: no profile was taken: %s", ref, unavailable)
	case !recorded && !taken:
		return nil, fmt.Errorf("%s: a perf report or perf script table has no instructions; annotate its perf.data, or a set recorded with kdelta run --profile", ref)
	case !recorded:
		return nil, fmt.Errorf("%s: its profiles were %w", ref, ErrNotAnnotated)
	}
	for _, n := range names {
		if n == symbol {
			return nil, fmt.Errorf("%s: %s is in the profile but not among the hottest symbols annotated when it was recorded (annotated: %s)", ref, symbol, strings.Join(annotatedNames(gs), ", "))
		}
	}
	return nil, notFound(ref, symbol, names)
}

// isPerfData tells whether path is a perf.data file, from its first
// bytes only: a perf.data can be large.
func isPerfData(path string) bool {
	// Only a regular file: opening a FIFO would wait for a writer, and
	// perf reads a perf.data file by seeking in it.
	if fi, err := os.Stat(path); err != nil || !fi.Mode().IsRegular() {
		return false
	}
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, len(perfDataMagic))
	_, err = io.ReadFull(f, head)
	return err == nil && bytes.Equal(head, perfDataMagic)
}

// annotateData annotates one symbol of a perf.data now.
func annotateData(ref, symbol string, o AnnotateOptions) (*Annotation, error) {
	perf, err := Options{Perf: o.Perf}.perf()
	if err != nil {
		return nil, err
	}
	counts, err := sampleOffsets(perf, ref)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", ref, err)
	}
	var names []string
	for k, c := range counts {
		if k.sym == symbol {
			an := annotator{perf: perf, data: ref, o: Options{Vmlinux: o.Vmlinux}}
			return &Annotation{Ref: ref, Benchmark: ref, Profiles: 1, ProfileAnnotation: *an.symbol(k, c)}, nil
		}
		names = append(names, k.sym)
	}
	return nil, notFound(ref, symbol, names)
}

// pick returns the annotation of symbol among as, parsed from a text; a
// text of one unnamed annotation is that symbol's.
func pick(ref, name, symbol string, as []*result.ProfileAnnotation) (*Annotation, error) {
	var names []string
	for _, a := range as {
		if a.Symbol == symbol || (len(as) == 1 && a.Symbol == "") {
			an := &Annotation{Ref: ref, Benchmark: name, Profiles: 1, ProfileAnnotation: *a}
			an.Symbol = symbol
			return an, nil
		}
		if a.Symbol != "" {
			names = append(names, a.Symbol)
		}
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("%s: its %d annotations do not name their symbols (a pasted TUI shows none); cut the text to the one of %s", ref, len(as), symbol)
	}
	return nil, notFound(ref, symbol, names)
}

// notFound is the error for a symbol missing from ref, naming the
// symbols there whose names are closest to it.
func notFound(ref, symbol string, names []string) error {
	near := nearest(symbol, names, 3)
	if len(near) == 0 {
		return fmt.Errorf("%s: no symbol %s in its profiles", ref, symbol)
	}
	return fmt.Errorf("%s: no symbol %s in its profiles; nearest: %s", ref, symbol, strings.Join(near, ", "))
}

// nearest returns up to n distinct names closest to s: those that
// contain it or that it contains first, then by edit distance.
func nearest(s string, names []string, n int) []string {
	type cand struct {
		name    string
		rank, d int
	}
	seen := map[string]bool{}
	var cs []cand
	for _, name := range names {
		if name == "" || seen[name] {
			continue
		}
		seen[name] = true
		c := cand{name: name, rank: 1, d: editDistance(s, name)}
		if strings.Contains(name, s) || strings.Contains(s, name) {
			c.rank, c.d = 0, len(name)
		}
		cs = append(cs, c)
	}
	sort.Slice(cs, func(i, j int) bool {
		if cs[i].rank != cs[j].rank {
			return cs[i].rank < cs[j].rank
		}
		if cs[i].d != cs[j].d {
			return cs[i].d < cs[j].d
		}
		return cs[i].name < cs[j].name
	})
	var out []string
	for _, c := range cs {
		if len(out) == n {
			break
		}
		out = append(out, c.name)
	}
	return out
}

// editDistance is Levenshtein's distance between a and b, bytewise.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			c := prev[j-1]
			if a[i-1] != b[j-1] {
				c++
			}
			cur[j] = min(c, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

func annotatedNames(gs []Group) []string {
	seen := map[string]bool{}
	var out []string
	for _, g := range gs {
		for _, p := range g.Profiles {
			for _, a := range p.Annotations {
				if !seen[a.Symbol] {
					seen[a.Symbol] = true
					out = append(out, a.Symbol)
				}
			}
		}
	}
	return out
}

// merge adds up one symbol's annotations from several profiles of a
// benchmark: samples by offset onto the lines of the first that has
// instruction text, shares recomputed from the summed samples.
func merge(as []*result.ProfileAnnotation) result.ProfileAnnotation {
	base := *as[0]
	for _, a := range as {
		if a.NoText == "" {
			base = *a
			break
		}
	}
	if len(as) == 1 {
		return base
	}
	byOff := map[int64]int64{}
	var total int64
	for _, a := range as {
		total += a.Samples
		for _, l := range a.Lines {
			if !l.Source && l.Offset >= 0 {
				byOff[l.Offset] += l.Samples
			}
		}
	}
	lines := make([]result.AnnotatedLine, 0, len(base.Lines))
	seen := map[int64]bool{}
	for _, l := range base.Lines {
		if !l.Source && l.Offset >= 0 {
			l.Samples, seen[l.Offset] = byOff[l.Offset], true
		}
		lines = append(lines, l)
	}
	// Offsets sampled only in other profiles (perf script only, each
	// listing its own offsets) join as lines of their own.
	var extra []int64
	for off := range byOff {
		if !seen[off] {
			extra = append(extra, off)
		}
	}
	sort.Slice(extra, func(i, j int) bool { return extra[i] < extra[j] })
	for _, off := range extra {
		lines = append(lines, result.AnnotatedLine{Offset: off, Samples: byOff[off]})
	}
	if base.NoText != "" {
		sort.SliceStable(lines, func(i, j int) bool { return lines[i].Offset < lines[j].Offset })
	}
	for i := range lines {
		if !lines[i].Source && total > 0 {
			lines[i].Percent = 100 * float64(lines[i].Samples) / float64(total)
		}
	}
	base.Lines, base.Samples = lines, total
	return base
}
