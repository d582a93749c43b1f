package report

import (
	"fmt"
	"io"

	"github.com/kdelta/kdelta/internal/result"
)

// WriteConditionDiffs prints the run conditions that differ between two
// sets, first in env diff, since they move a figure as a kernel does;
// nothing when they agree or are unknown.
func WriteConditionDiffs(w io.Writer, ds []result.ConditionDiff) {
	if len(ds) == 0 {
		return
	}
	fmt.Fprintln(w, "run conditions (they move the figures as a kernel does):")
	for _, d := range ds {
		fmt.Fprintf(w, "  ! %s\n", d)
	}
	fmt.Fprintln(w)
}
