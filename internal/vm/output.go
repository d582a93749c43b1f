package vm

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/kdelta/kdelta/internal/compare"
	"github.com/kdelta/kdelta/internal/result"
)

// Keep records each variant's set with record, when recording (a store is
// open), and saves it in dir ("" for none), saying on log where each went,
// or that none was kept.
func Keep(log io.Writer, sets []*result.Set, record func(*result.Set) error, recording bool, dir string) error {
	for _, s := range sets {
		if recording {
			if err := record(s); err != nil {
				return err
			}
			fmt.Fprintf(log, "kdelta: vm: variant %s recorded as %s\n", s.Labels["variant"], s.ID)
		}
		if dir == "" {
			continue
		}
		path, err := Save(dir, s)
		if err != nil {
			return err
		}
		fmt.Fprintf(log, "kdelta: vm: variant %s saved in %s\n", s.Labels["variant"], path)
	}
	if dir == "" && !recording && len(sets) > 0 {
		fmt.Fprintln(log, "kdelta: results not saved (use -o DIR, or leave out --no-store)")
	}
	return nil
}

// Save writes s, the result set of one variant, into dir under a name of
// its own (its letter, kernel release and command line) and returns the
// file's path.
func Save(dir string, s *result.Set) (string, error) {
	path := filepath.Join(dir, fileName(s))
	return path, result.Save(path, s)
}

// fileName names a variant's result file: its letter, kernel release and
// command line, with characters unsafe in file names replaced, cut at 120.
func fileName(s *result.Set) string {
	name := s.Labels["variant"] + "-" + s.Labels["kernel"]
	if cl := s.Labels["cmdline"]; cl != "" {
		name += "-" + cl
	}
	clean := strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '-', r == '_', r == '=':
			return r
		}
		return '_'
	}, name)
	if len(clean) > 120 {
		clean = clean[:120]
	}
	return clean + ".json"
}

// Compare compares the variants' result sets as kdelta compare does, the
// first variant the baseline, as kdelta ab ends, under opt
// (Until.CompareOptions: --alpha with --until-conclusive, whose verdicts
// these are, and the host's session noise). With fewer than two sets
// there is nothing to compare, and the result is nil.
func Compare(sets []*result.Set, opt compare.Options) (*compare.Result, error) {
	if len(sets) < 2 {
		return nil, nil
	}
	ids := make([]string, len(sets))
	for i, s := range sets {
		ids[i] = s.ID
	}
	names := compare.Names(sets, ids)
	ins := make([]compare.Input, len(sets))
	for i, s := range sets {
		ins[i] = compare.Input{Name: names[i], Set: s}
	}
	r, err := compare.Compare(ins, opt)
	if err != nil {
		return nil, fmt.Errorf("vm: compare the variants: %w", err)
	}
	return r, nil
}
