package report

import (
	"fmt"
	"io"

	"github.com/kdelta/kdelta/internal/outfile"
)

// ToFile runs write on w, or, when path is not "", writes what it writes
// to path through outfile: a regular file appears or is replaced only
// when write succeeds (a failed report leaves no half file behind), a
// device or pipe is written through, and a link, a directory or a block
// device is refused.
func ToFile(path string, w io.Writer, write func(io.Writer) error) error {
	if path == "" {
		return write(w)
	}
	var werr error
	err := outfile.Write(path, func(f io.Writer) error {
		werr = write(f)
		return werr
	})
	if err != nil && err != werr {
		return fmt.Errorf("-o %s: %w", path, err)
	}
	return err
}
