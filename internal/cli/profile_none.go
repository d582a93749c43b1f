package cli

import (
	"fmt"
	"strings"

	kprofile "github.com/kdelta/kdelta/internal/profile"
)

// noProfile is the error of a profile diff that compared nothing for a
// side without a profile: the diff and its reasons are printed, and
// kdelta exits 2, not 0 (issue 35): nothing compared is no finding. nil
// when every diff had profiles on both sides.
func noProfile(diffs []*kprofile.Diff) error {
	if names := kprofile.Unprofiled(diffs); len(names) > 0 {
		return &exitError{code: ExitUsage, err: fmt.Errorf("profile diff: %s: no profile, nothing compared", strings.Join(names, ", "))}
	}
	return nil
}
