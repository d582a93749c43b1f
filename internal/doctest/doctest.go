// Package doctest reads the examples the README and the manual in docs/
// show — commands and the output each printed — so that a test runs them
// and the pages cannot drift from what kdelta prints.
//
// An example is a fenced block announced by an HTML comment, invisible
// when the page is rendered:
//
//	<!-- example compare-seed-002 -->
//	```console
//	$ kdelta compare baseline.md with-fix.md
//	A: title=Baseline (without fix) (baseline)
//	...
//	```
//
// Words after the name say how it is held to kdelta's output: "shape"
// compares it with every number and commit hash masked (a measurement
// prints other figures on every run, never other words); "root" runs it
// only as root (a knob is flipped); "tail" shows the output's last lines
// only; "lines" shows some of its lines, in order, a line "..." where
// others were left out (a measurement's warnings come and go); "input NAME..." names files of
// docs/examples/ it reads; "by TestName" says that test, which runs it
// anyway (a kernel series takes minutes), holds the block to its own
// output with Match.
package doctest

import (
	"bufio"
	"fmt"
	"os"
	"regexp"
	"strings"
)

// An Example is one announced block of a page.
type Example struct {
	Name string
	File string
	Line int // of the announcing comment
	// Shape: compared with numbers and hashes masked, not byte for byte.
	Shape bool
	// Root: it flips a kernel knob and runs only as root.
	Root bool
	// Tail: the block shows the output's last lines only.
	Tail bool
	// Lines: the block shows some of the output's lines, in order.
	Lines bool
	// Inputs are files of docs/examples the commands read.
	Inputs []string
	// By names the test that runs it, when not the README test.
	By    string
	Steps []Step
}

// A Step is one command ($ kdelta ...) and the output shown under it.
type Step struct {
	Cmd string
	Out string
}

var announce = regexp.MustCompile(`^<!-- example ([a-z0-9-]+)((?: [^ ]+)*) -->$`)

// Read returns the examples of one markdown file, in order. A malformed
// announcement (no fenced block after it, a word it does not know, a
// block with no command) is an error naming the file and line.
func Read(path string) ([]Example, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	lines := strings.Split(string(b), "\n")
	var exs []Example
	for i := 0; i < len(lines); i++ {
		m := announce.FindStringSubmatch(lines[i])
		if m == nil {
			if strings.HasPrefix(lines[i], "<!-- example") {
				return nil, fmt.Errorf("%s:%d: not an example announcement: %q", path, i+1, lines[i])
			}
			continue
		}
		ex := Example{Name: m[1], File: path, Line: i + 1}
		words := strings.Fields(m[2])
		for j := 0; j < len(words); j++ {
			switch w := words[j]; w {
			case "shape":
				ex.Shape = true
			case "root":
				ex.Root = true
			case "tail":
				ex.Tail = true
			case "lines":
				ex.Lines = true
			case "by":
				if j+1 == len(words) {
					return nil, fmt.Errorf("%s:%d: \"by\" without a test name", path, i+1)
				}
				j++
				ex.By = words[j]
			case "input":
				ex.Inputs = append(ex.Inputs, words[j+1:]...)
				j = len(words)
			default:
				return nil, fmt.Errorf("%s:%d: example %s: unknown word %q", path, i+1, ex.Name, w)
			}
		}
		if i+1 >= len(lines) || !strings.HasPrefix(lines[i+1], "```") {
			return nil, fmt.Errorf("%s:%d: example %s: no fenced block after it", path, i+1, ex.Name)
		}
		i += 2
		for ; i < len(lines) && !strings.HasPrefix(lines[i], "```"); i++ {
			if cmd, ok := strings.CutPrefix(lines[i], "$ "); ok {
				ex.Steps = append(ex.Steps, Step{Cmd: cmd})
				continue
			}
			if len(ex.Steps) == 0 {
				return nil, fmt.Errorf("%s:%d: example %s: output before any command", path, ex.Line, ex.Name)
			}
			s := &ex.Steps[len(ex.Steps)-1]
			s.Out += lines[i] + "\n"
		}
		if i == len(lines) {
			return nil, fmt.Errorf("%s:%d: example %s: its block is never closed", path, ex.Line, ex.Name)
		}
		if len(ex.Steps) == 0 {
			return nil, fmt.Errorf("%s:%d: example %s: no command", path, ex.Line, ex.Name)
		}
		exs = append(exs, ex)
	}
	return exs, nil
}

var (
	// A commit's abbreviated or whole hash, a result id's tail: seven
	// or more hex digits with a letter among them (digits alone are a
	// number).
	hashRE = regexp.MustCompile(`\b[0-9a-f]{7,64}\b`)
	// A p-value's relation: p<0.001 on one run is p=0.004 on the next.
	pRE = regexp.MustCompile(`\bp[<=]N`)
	// A number as kdelta prints one: sign, thousands commas, decimals,
	// an exponent; a percentage's sign goes with it.
	numberRE = regexp.MustCompile(`[-+±≈]?\d+(?:,\d{3})*(?:\.\d+)?(?:e[-+]?\d+)?`)
	spaceRE  = regexp.MustCompile(`[ \t]+`)
)

// Mask is text as Shape compares it: hashes and numbers replaced by one
// mark each, runs of blanks by one blank (a wider figure moves a column),
// blank lines and trailing blanks dropped.
func Mask(s string) string {
	s = hashRE.ReplaceAllStringFunc(s, func(h string) string {
		if strings.ContainsAny(h, "abcdef") {
			return "H"
		}
		return h
	})
	s = numberRE.ReplaceAllString(s, "N")
	s = pRE.ReplaceAllString(s, "pN")
	var out []string
	sc := bufio.NewScanner(strings.NewReader(s))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		l := strings.TrimSpace(spaceRE.ReplaceAllString(sc.Text(), " "))
		if l != "" {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// Match says how got differs from the output a step shows: "" when it
// does not. A shape example compares masked text; any other, the text
// itself with trailing blanks dropped from each line.
func (ex Example) Match(step int, got string) string {
	want := ex.Steps[step].Out
	if ex.Shape {
		want, got = Mask(want), Mask(got)
	} else {
		want, got = trimLines(want), trimLines(got)
	}
	if ex.Lines {
		if missing := notIn(want, got); missing != "" {
			return fmt.Sprintf("%s:%d: example %s, command %q: the page shows %q, which kdelta did not print there; it printed\n%s", ex.File, ex.Line, ex.Name, ex.Steps[step].Cmd, missing, got)
		}
		return ""
	}
	if ex.Tail {
		w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
		if len(g) > len(w) {
			got = strings.Join(g[len(g)-len(w):], "\n")
		}
	}
	if want == got {
		return ""
	}
	return fmt.Sprintf("%s:%d: example %s, command %q: the page shows\n%s\nkdelta printed\n%s", ex.File, ex.Line, ex.Name, ex.Steps[step].Cmd, want, got)
}

// notIn returns the first line of want (not "...") that is not in got
// after the lines matched before it: "" when every line is.
func notIn(want, got string) string {
	g := strings.Split(got, "\n")
	for _, w := range strings.Split(want, "\n") {
		if w == "..." || w == "" {
			continue
		}
		for len(g) > 0 && g[0] != w {
			g = g[1:]
		}
		if len(g) == 0 {
			return w
		}
		g = g[1:]
	}
	return ""
}

func trimLines(s string) string {
	ls := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range ls {
		ls[i] = strings.TrimRight(l, " \t")
	}
	return strings.Join(ls, "\n")
}

// Find returns the example named name among the pages' examples.
func Find(paths []string, name string) (Example, error) {
	for _, p := range paths {
		exs, err := Read(p)
		if err != nil {
			return Example{}, err
		}
		for _, ex := range exs {
			if ex.Name == name {
				return ex, nil
			}
		}
	}
	return Example{}, fmt.Errorf("no example %s in %s", name, strings.Join(paths, ", "))
}
