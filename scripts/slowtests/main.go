// Command slowtests reads `go test -json` on standard input and prints
// what plain `go test` would (each package's ok or FAIL line, a failing
// test's whole output, build errors), and appends each top-level test's
// time to the file named by its one argument, so that the test script
// can end with the slowest tests of the whole run.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
)

// event is one line of test2json's output (go doc cmd/test2json).
type event struct {
	Action  string
	Package string
	Test    string
	Elapsed float64
	Output  string
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: go test -json ... | slowtests TIMES-FILE")
		os.Exit(2)
	}
	times, err := os.OpenFile(os.Args[1], os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		fmt.Fprintln(os.Stderr, "slowtests:", err)
		os.Exit(2)
	}
	if err := filter(os.Stdin, os.Stdout, times); err != nil {
		fmt.Fprintln(os.Stderr, "slowtests:", err)
		os.Exit(2)
	}
	if err := times.Close(); err != nil {
		fmt.Fprintln(os.Stderr, "slowtests:", err)
		os.Exit(2)
	}
}

// filter copies the events of in to out as plain go test prints them,
// and each top-level test's seconds to times.
func filter(in io.Reader, out, times io.Writer) error {
	w := bufio.NewWriter(out)
	defer w.Flush()
	// The output of each test still running, printed if it fails or its
	// package fails before it ends (a panic, a timeout).
	held := map[string]*strings.Builder{}
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var e event
		if json.Unmarshal(line, &e) != nil || e.Action == "" {
			// Not an event: go's own words (a build failure), as they are.
			fmt.Fprintf(w, "%s\n", line)
			continue
		}
		// A subtest's words go with its top-level test's, in order.
		top, _, isSub := strings.Cut(e.Test, "/")
		key := e.Package + " " + top
		switch {
		case e.Action == "build-output":
			// A package that does not compile (go 1.24 and later).
			w.WriteString(e.Output)
		case e.Test == "" && e.Action == "output":
			if e.Output != "PASS\n" {
				w.WriteString(e.Output)
			}
		case e.Test == "" && e.Action == "fail":
			for k, b := range held {
				if strings.HasPrefix(k, e.Package+" ") {
					w.WriteString(b.String())
					delete(held, k)
				}
			}
		case e.Test == "":
		case e.Action == "output":
			b := held[key]
			if b == nil {
				b = &strings.Builder{}
				held[key] = b
			}
			b.WriteString(e.Output)
		case isSub:
		case e.Action == "fail" || e.Action == "pass" || e.Action == "skip":
			if b := held[key]; b != nil && e.Action == "fail" {
				w.WriteString(b.String())
			}
			delete(held, key)
			if e.Action != "skip" {
				if _, err := fmt.Fprintf(times, "%.1f\t%s\t%s\n", e.Elapsed, e.Package, e.Test); err != nil {
					return err
				}
			}
		}
		if err := w.Flush(); err != nil {
			return err
		}
	}
	return sc.Err()
}
