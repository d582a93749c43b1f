package result

import (
	"context"
	"fmt"
	"strings"
)

// Tables in mails often hold the configurations they compare side by side:
// a column per variant ("With Patch (s) | Without Patch (s)"), a numbered
// list of them ("1 - default: 24.221s"), or a table whose columns are
// numbered variants and whose rows are statistics ("median: 37249.5
// 31540.5 ..."). Each variant is a result set of its own, so that kdelta
// compare puts one beside the other as it does two kdelta runs.
//
// While an import is read, a benchmark of a variant carries the variant in
// the parameter VariantParam, which Import leaves in place (one set that
// shows everything) and ImportSets turns into one set per variant, labelled
// variant=NAME.

// VariantParam is the parameter, and the label, that names a variant.
const VariantParam = "variant"

// variantName turns a column header or a list item into a variant's name:
// a slug, without the characters a file name or a label cannot hold.
func variantName(s string) string {
	v := strings.NewReplacer("/", "-", ":", "-", "%", "pct").Replace(slug(s))
	return strings.Trim(v, "-.")
}

// ImportSets is Import for input that may hold several variants: it
// returns one set per variant, in the order the input names them, each
// labelled variant=NAME, and otherwise the one set Import returns.
// Benchmarks of the input outside any variant (a run table beside a
// variant table) make a set of their own, first, without the label.
func ImportSets(name string, data []byte, format string) ([]*Set, error) {
	s, variants, err := importSet(name, data, format)
	if err != nil {
		return nil, err
	}
	if !variants {
		return []*Set{s}, nil
	}
	return splitVariants(s), nil
}

// splitVariants makes a set of each variant of s.
func splitVariants(s *Set) []*Set {
	var order []string
	byName := map[string]*Set{}
	for _, b := range s.Benchmarks {
		v, ok := b.Params[VariantParam]
		if !ok {
			v = ""
		}
		vs := byName[v]
		if vs == nil {
			c := *s
			c.Labels = map[string]string{}
			for k, l := range s.Labels {
				c.Labels[k] = l
			}
			c.Benchmarks = nil
			c.Warnings = append([]string(nil), s.Warnings...)
			if v != "" {
				c.Labels[VariantParam] = v
				c.ID = importID(c.Created)
			}
			vs = &c
			byName[v] = vs
			order = append(order, v)
		}
		nb := *b
		nb.Params = map[string]string{}
		for k, p := range b.Params {
			if k != VariantParam {
				nb.Params[k] = p
			}
		}
		vs.Benchmarks = append(vs.Benchmarks, &nb)
	}
	// The benchmarks outside any variant come first.
	out := make([]*Set, 0, len(order))
	if vs, ok := byName[""]; ok {
		out = append(out, vs)
	}
	for _, v := range order {
		if v != "" {
			out = append(out, byName[v])
		}
	}
	return out
}

// ImportFiles imports each file (format as Import takes it) and returns
// one set per variant (see ImportSets): the first file's, with the later
// files' benchmarks and warnings of the same variant after its own. Input
// without variants gives one set, as before variants were read.
func ImportFiles(ctx context.Context, paths []string, format string) ([]*Set, error) {
	var out []*Set
	byVariant := map[string]*Set{}
	for _, path := range paths {
		data, err := ReadInput(ctx, path, MaxImportBytes, "a file to import")
		if err != nil {
			return nil, err
		}
		sets, err := ImportSets(path, data, format)
		if err != nil {
			return nil, err
		}
		for _, s := range sets {
			v := s.Labels[VariantParam]
			merged, ok := byVariant[v]
			if !ok {
				byVariant[v] = s
				out = append(out, s)
				continue
			}
			merged.Benchmarks = append(merged.Benchmarks, s.Benchmarks...)
			merged.Warnings = append(merged.Warnings, s.Warnings...)
		}
	}
	return out, nil
}

// PickVariant returns the set of the variant named name (as the variant
// label spells it, or as the input did); "" picks every set.
func PickVariant(sets []*Set, name string) ([]*Set, error) {
	if name == "" {
		return sets, nil
	}
	var have []string
	for _, s := range sets {
		v, ok := s.Labels[VariantParam]
		if !ok {
			continue
		}
		if v == name || v == variantName(name) {
			return []*Set{s}, nil
		}
		have = append(have, v)
	}
	if len(have) == 0 {
		return nil, fmt.Errorf("--variant %s: the input holds no variants", name)
	}
	return nil, fmt.Errorf("--variant %s: no such variant (the input holds %s)", name, strings.Join(have, ", "))
}

// SaveSets writes sets to output: one set to output itself; several (the
// variants of an import) each to PREFIX-VARIANT.json, PREFIX being output
// without its .json, and the set outside any variant to output. It returns
// the files written.
func SaveSets(output string, sets []*Set) ([]string, error) {
	if len(sets) == 1 {
		return []string{output}, Save(output, sets[0])
	}
	prefix := strings.TrimSuffix(output, ".json")
	var paths []string
	for _, s := range sets {
		// The benchmarks outside any variant go to output itself.
		path := output
		if v := s.Labels[VariantParam]; v != "" {
			path = prefix + "-" + v + ".json"
		}
		if err := Save(path, s); err != nil {
			return paths, err
		}
		paths = append(paths, path)
	}
	return paths, nil
}
