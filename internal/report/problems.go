package report

import "strings"

// Problems is err as lines to print, one per problem: the errors that an
// errors.Join holds, each under the context wrapped around the join
// ("--alpha/--test: alpha 2 is not in (0, 1)"), and of any other error
// its first line, so that the output a failed tool printed, or a Go
// stack in it, never reaches the user.
func Problems(err error) []string {
	switch e := err.(type) {
	case interface{ Unwrap() []error }:
		// errors.Join's message is its errors' on lines of their own; an
		// error wrapping several (fmt.Errorf with two %w) is one problem.
		var msgs []string
		for _, c := range e.Unwrap() {
			if c != nil {
				msgs = append(msgs, c.Error())
			}
		}
		if len(msgs) > 1 && err.Error() == strings.Join(msgs, "\n") {
			var out []string
			for _, c := range e.Unwrap() {
				if c != nil {
					out = append(out, Problems(c)...)
				}
			}
			return out
		}
	case interface{ Unwrap() error }:
		if inner := e.Unwrap(); inner != nil {
			if prefix, ok := strings.CutSuffix(err.Error(), inner.Error()); ok {
				if sub := Problems(inner); len(sub) > 1 {
					for i := range sub {
						sub[i] = prefix + sub[i]
					}
					return sub
				}
			}
		}
	}
	msg, _, _ := strings.Cut(err.Error(), "\n")
	return []string{msg}
}
