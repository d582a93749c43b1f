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

// WriteCompareProfiles appends the profile diffs of compare --profile to
// a text or Markdown comparison, after the warnings of the files whose
// profiles could not be diffed; other formats get only a warning.
func WriteCompareProfiles(w, errw io.Writer, fds []profile.FileDiff, warnings []error, format string) error {
	if format != "text" && format != "markdown" {
		fmt.Fprintf(errw, "kdelta: warning: --profile: profile diffs are appended to text and markdown output only (kdelta profile diff --format %s A B gives them alone)\n", format)
		return nil
	}
	for _, err := range warnings {
		fmt.Fprintf(errw, "kdelta: warning: --profile: %v\n", err)
	}
	return WriteFileDiffs(w, fds, format)
}
