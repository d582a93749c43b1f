package result

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/kdelta/kdelta/internal/outfile"
)

// FormatParams writes params as k=v pairs in key order, the way the command
// line takes them.
func FormatParams(p map[string]string) string { return FormatPairs(p, ",") }

// FormatPairs writes m as k=v pairs in key order, sep between them: the
// one writer of parameters (",") and labels (" ").
func FormatPairs(m map[string]string, sep string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for i, k := range keys {
		if i > 0 {
			b.WriteString(sep)
		}
		b.WriteString(k + "=" + m[k])
	}
	return b.String()
}

// Save writes s to path through outfile: atomically over a regular file
// or nothing, so a reader (or a kdelta killed mid-write) always finds
// either the previous complete file or the new one; through to a device
// or pipe; never over a link, a directory or a block device.
func Save(path string, s *Set) error {
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return fmt.Errorf("encode result set: %w", err)
	}
	if err := outfile.WriteBytes(path, append(data, '\n')); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// Load reads a result set written by Save (LoadContext, never given up).
func Load(path string) (*Set, error) {
	return LoadContext(context.Background(), path)
}

// Decode parses a result set; name is used in errors.
func Decode(name string, data []byte) (*Set, error) {
	var head struct {
		Schema string `json:"schema"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return nil, fmt.Errorf("%s: not a kdelta result set: %v", name, err)
	}
	if head.Schema != Schema {
		return nil, fmt.Errorf("%s: unknown schema %q (want %q)", name, head.Schema, Schema)
	}
	var s Set
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	if err := s.Check(); err != nil {
		return nil, fmt.Errorf("%s: not a valid result set: %v", name, err)
	}
	if strings.HasPrefix(s.Tool, "import ") {
		oldImport(&s)
	}
	return &s, nil
}

// oldImport reads the runs of an import written before a run could lack a
// figure, when every figure was written and those the tool never printed
// were 0. Such a run has context-switch keys, which no importer ever had;
// they, the exit code, a zero RSS and a zero wall time are taken as
// lacking, and user and sys times too when all three times are 0.
func oldImport(s *Set) {
	for _, b := range s.Benchmarks {
		for _, r := range b.Runs {
			if !r.Has(FigCtxSw) {
				continue
			}
			r.Lacks |= FigExitCode | FigCtxSw
			if r.MaxRSSKiB == 0 {
				r.Lacks |= FigMaxRSS
			}
			if r.WallSec == 0 {
				r.Lacks |= FigWall
				if r.UserSec == 0 && r.SysSec == 0 {
					r.Lacks |= FigUser | FigSys
				}
			}
		}
	}
}
