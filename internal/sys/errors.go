package sys

import "errors"

// ErrNotLinux is what this package's calls return on a system other than
// Linux. kdelta measures only on Linux; elsewhere it reads the result sets
// made there (compare, import, show, history, results, profile diff), and
// this package's other-system files only let the packages those commands
// share with measuring build. It matches errors.ErrUnsupported.
var ErrNotLinux error = notLinuxError{}

type notLinuxError struct{}

func (notLinuxError) Error() string { return "needs Linux" }

func (notLinuxError) Is(target error) bool { return target == errors.ErrUnsupported }
