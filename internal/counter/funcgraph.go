package counter

import (
	"bufio"
	"io"
	"strconv"
	"strings"
)

// ParseGraphTrace reads the text of the function_graph tracer's trace file
// and returns, by function, the duration in microseconds of every call
// whose return it holds. A call shows as one line when its entry and return
// are next to each other in its CPU's buffer ("|  synchronize_rcu();"),
// else as an entry ("|  synchronize_rcu() {") and, later, a return on the
// CPU it returned on ("|  } /* synchronize_rcu */", funcgraph-tail); the
// duration is on the line of the return, after the CPU, an overhead mark
// (+ ! # * @ $) and before " us |". Headers, context-switch and interrupt
// markers and "[LOST n EVENTS]" lines hold no duration and are skipped,
// as are entries whose return came after the window. A return that does
// not name its function (funcgraph-tail off) is taken for one, the only
// function traced, when one is given, and skipped otherwise.
func ParseGraphTrace(r io.Reader, one string) (map[string][]float64, error) {
	out := map[string][]float64{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		fn, us, ok := graphLine(sc.Text())
		if !ok {
			continue
		}
		if fn == "" {
			if one == "" {
				continue
			}
			fn = one
		}
		out[fn] = append(out[fn], us)
	}
	return out, sc.Err()
}

// graphLine parses one line of function_graph output: the function and the
// duration of a call that returned, or ok false for any other line.
func graphLine(line string) (fn string, us float64, ok bool) {
	i := strings.Index(line, " us ")
	if i < 0 {
		return "", 0, false
	}
	bar := strings.IndexByte(line[i:], '|')
	if bar < 0 {
		return "", 0, false
	}
	left := strings.Fields(line[:i])
	if len(left) == 0 {
		return "", 0, false
	}
	us, err := strconv.ParseFloat(left[len(left)-1], 64)
	if err != nil || us < 0 {
		return "", 0, false
	}
	call := strings.TrimSpace(line[i+bar+1:])
	switch {
	case strings.HasPrefix(call, "}"):
		// "}", "} /* synchronize_rcu */", "} /* f [module] */",
		// "} /* f ret=0x0 */".
		rest := strings.TrimSpace(call[1:])
		if c, found := strings.CutPrefix(rest, "/*"); found {
			if f := strings.Fields(strings.TrimSuffix(strings.TrimSpace(c), "*/")); len(f) > 0 {
				return f[0], us, true
			}
		}
		return "", us, true
	case strings.Contains(call, "();"):
		// "synchronize_rcu();", "f [module]();", "f(); /* = 0x0 */".
		name, _, _ := strings.Cut(call, "(")
		if f := strings.Fields(name); len(f) > 0 {
			return f[0], us, true
		}
	}
	return "", 0, false
}
