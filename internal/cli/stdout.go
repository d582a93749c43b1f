package cli

import (
	"fmt"
	"io"
)

// stdoutWriter is the command's stdout that remembers the first write
// that failed: a report printed to a full disk (kdelta compare … >
// /dev/full) is output lost, and kdelta must not then exit 0. Run checks
// it after the command returns.
type stdoutWriter struct {
	w   io.Writer
	err error
}

func (s *stdoutWriter) Write(b []byte) (int, error) {
	n, err := s.w.Write(b)
	if err != nil && s.err == nil {
		s.err = err
	}
	return n, err
}

// failed is the write error of stdout as one line naming it: the
// *os.File's own error names its path ("write /dev/stdout: no space left
// on device"); any other writer is called stdout.
func (s *stdoutWriter) failed() error {
	if s.err == nil {
		return nil
	}
	if _, ok := s.w.(interface{ Name() string }); ok {
		return s.err
	}
	return fmt.Errorf("write stdout: %w", s.err)
}
