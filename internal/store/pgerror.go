package store

import (
	"slices"
	"strings"
)

// lineError is an error whose message spreads over lines (pgx's
// "failed to connect to …:" followed by one indented line per attempt)
// written as one: kdelta prints the first line of an error, which left the
// reason out (issue 35 point 10). A line said already (the TLS attempt,
// then the plain one; a lookup error inside "hostname resolving error")
// is said once.
type lineError struct{ err error }

func (e lineError) Error() string {
	var parts []string
	for l := range strings.SplitSeq(e.err.Error(), "\n") {
		l = strings.TrimSpace(l)
		if l != "" && !slices.ContainsFunc(parts, func(p string) bool { return strings.Contains(p, l) }) {
			parts = append(parts, l)
		}
	}
	if len(parts) < 2 {
		return strings.Join(parts, "")
	}
	head := strings.TrimSuffix(parts[0], ":")
	return head + ": " + strings.Join(parts[1:], "; ")
}

func (e lineError) Unwrap() error { return e.err }

// oneLine makes err's message one line; nil stays nil.
func oneLine(err error) error {
	if err == nil || !strings.Contains(err.Error(), "\n") {
		return err
	}
	return lineError{err}
}
