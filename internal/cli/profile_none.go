package cli

import (
	"fmt"
	"slices"
	"strings"

	kprofile "github.com/kdelta/kdelta/internal/profile"
)

// noProfile is the error of a profile diff that compared nothing for a
// side without a profile (a result set run without --profile, or whose
// perf failed): the diff and its reasons are printed, and kdelta exits 2,
// not 0 (issue 35): nothing compared is no finding. nil when every diff
// had profiles on both sides.
func noProfile(diffs []*kprofile.Diff) error {
	var names []string
	for _, d := range diffs {
		for _, s := range []kprofile.Summary{d.A, d.B} {
			name := s.Name
			if len(s.Unavailable) > 0 {
				name += " (" + s.Unavailable[0] + ")"
			}
			if s.N == 0 && !slices.Contains(names, name) {
				names = append(names, name)
			}
		}
	}
	if len(names) == 0 {
		return nil
	}
	return &exitError{code: ExitUsage, err: fmt.Errorf("profile diff: %s: no profile, nothing compared", strings.Join(names, ", "))}
}
