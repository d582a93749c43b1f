package mail

import (
	"errors"
	"os"
	"path/filepath"
	"sort"

	"github.com/kdelta/kdelta/internal/result"
)

// AbsKernels are kernels with each one that is a file here named from
// the root: the plan's job files lie in a directory of their own, where
// a relative path would be looked for. Other references (deb:, git:)
// stay as they are.
func AbsKernels(kernels []string) []string {
	out := append([]string(nil), kernels...)
	for i, k := range out {
		if fi, err := os.Stat(k); err == nil && fi.Mode().IsRegular() {
			if abs, err := filepath.Abs(k); err == nil {
				out[i] = abs
			}
		}
	}
	return out
}

// LoadBooted loads the sets kdelta vm -f wrote into dir for j, its
// variants the kernels given, in the order booted, each labelled with
// the mail's variant its kernel stands for (mail_variant): kdelta vm
// names the variants A, B, ... in the job's order, which is the order of
// the kernels and of the mail's variants.
func (j *Job) LoadBooted(dir string) ([]*result.Set, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil || len(files) == 0 {
		return nil, errors.New("kdelta vm -f wrote no result set")
	}
	sort.Strings(files)
	var sets []*result.Set
	for _, f := range files {
		s, err := result.Load(f)
		if err != nil {
			return nil, err
		}
		if v := s.Labels["variant"]; len(v) == 1 && v[0] >= 'A' && int(v[0]-'A') < len(j.Variants) {
			s.Labels["mail_variant"] = j.Variants[v[0]-'A']
		}
		sets = append(sets, s)
	}
	return sets, nil
}
