package report

import (
	"fmt"
	"io"

	"github.com/kdelta/kdelta/internal/profile"
)

// WriteFileDiffs appends to a comparison the profile diffs of each file
// against the baseline (kdelta compare --profile), each under a heading,
// in text or Markdown.
func WriteFileDiffs(w io.Writer, fds []profile.FileDiff, format string) error {
	for _, fd := range fds {
		if format == "markdown" {
			fmt.Fprintf(w, "\n## profiles: %s vs %s\n\n", fd.Other, fd.Base)
		} else {
			fmt.Fprintf(w, "\nprofiles: %s vs %s\n\n", fd.Other, fd.Base)
		}
		if err := WriteProfileDiffs(w, fd.Diffs, format, 15); err != nil {
			return err
		}
	}
	return nil
}
