package outfile

import (
	"fmt"
	"io"
)

// A Watched writer is a command's stdout that remembers the first write
// that failed: a report printed to a full disk (kdelta compare … >
// /dev/full) is output lost, and kdelta must not then exit 0 (issue 35
// point 10). The command line checks Failed after the command returns.
type Watched struct {
	W   io.Writer
	err error
}

func (s *Watched) Write(b []byte) (int, error) {
	n, err := s.W.Write(b)
	if err != nil && s.err == nil {
		s.err = err
	}
	return n, err
}

// Failed is the first failed write as one line naming the output: an
// *os.File's own error names its path ("write /dev/stdout: no space left
// on device"); any other writer is called stdout.
func (s *Watched) Failed() error {
	if s.err == nil {
		return nil
	}
	if _, ok := s.W.(interface{ Name() string }); ok {
		return s.err
	}
	return fmt.Errorf("write stdout: %w", s.err)
}
