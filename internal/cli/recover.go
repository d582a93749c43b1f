package cli

import (
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"
)

// bugMarker starts the one line a panic leaves: what a user sees of a bug
// in kdelta, and what a test looks for to show that no bad input reaches
// it.
const bugMarker = "kdelta: internal error (a bug in kdelta; please report it with this line): "

// lastResort, deferred by Run, turns a panic into one line on stderr and
// exit status ExitUsage. It is only for kdelta's bugs: bad input is
// refused by the code that reads it, with a line naming what and where.
// The goroutine's stack is written after the line only with
// KDELTA_TRACEBACK=1 in the environment.
func lastResort(stderr io.Writer, code *int) {
	v := recover()
	if v == nil {
		return
	}
	*code = ExitUsage
	where := ""
	stack := string(debug.Stack())
	// The frame that panicked is the first one below runtime's panic.
	if _, after, ok := strings.Cut(stack, "panic("); ok {
		lines := strings.Split(after, "\n")
		for i := 0; i+1 < len(lines); i++ {
			if strings.HasPrefix(lines[i], "\t") && !strings.Contains(lines[i], "/runtime/") {
				where = " at " + strings.TrimSpace(strings.Fields(lines[i])[0])
				break
			}
		}
	}
	msg := strings.ReplaceAll(fmt.Sprint(v), "\n", " ")
	fmt.Fprintf(stderr, "%spanic: %s%s\n", bugMarker, msg, where)
	if os.Getenv("KDELTA_TRACEBACK") == "1" {
		fmt.Fprint(stderr, stack)
	}
}
