package profile

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/kdelta/kdelta/internal/result"
)

var (
	// scriptHeaderRE is a sample's first line in perf script's default
	// output: comm (padded, may hold spaces), pid or pid/tid, optional
	// [cpu], optional time, optional period, the event, and for a sample
	// without a call graph its one frame.
	scriptHeaderRE = regexp.MustCompile(`^\s*(.+?)\s+(\d+)(?:/\d+)?\s+(?:\[\d+\]\s+)?(?:\d+\.\d+:\s+)?(?:(\d+)\s+)?(\S+):(?:\s+(.*?))?\s*$`)
	// scriptFrameRE is one frame: address, symbol (+offset), (object).
	scriptFrameRE = regexp.MustCompile(`^\s*([0-9a-fA-F]+)\s+(.+?)\s+\((.*)\)\s*$`)
)

// ParseScript reads the output of `perf script` (its default fields, or
// -F with comm, tid, period, event, ip, sym and dso among them), with or
// without call graphs. Samples of the first event are kept; a sample's
// leaf frame is its symbol, and with call graphs its whole stack is kept.
// Shares are by period when every sample has one, as perf report's
// Overhead, else by count.
func ParseScript(name string, data []byte) (*result.Profile, error) {
	type key struct{ comm, dso, sym string }
	var (
		prof    = &result.Profile{Source: "perf script " + name}
		leaf    = map[key]*result.ProfileSymbol{}
		weights = map[key]float64{}
		stacks  = map[string]*keyedStack{}
		total   float64
		others  = map[string]int{}
		cur     *scriptSample
		lines   = strings.Split(string(data), "\n")
	)
	byPeriod := true
	flush := func() {
		if cur == nil {
			return
		}
		s := cur
		cur = nil
		if s.event != prof.Event {
			others[s.event]++
			return
		}
		prof.Samples++
		if s.period == 0 {
			byPeriod = false
		}
		f := result.ProfileFrame{Symbol: "[unknown]", DSO: "[unknown]"}
		if len(s.frames) > 0 {
			f = s.frames[0]
		}
		k := key{s.comm, f.DSO, f.Symbol}
		ps := leaf[k]
		if ps == nil {
			ps = &result.ProfileSymbol{Command: s.comm, DSO: f.DSO, Symbol: f.Symbol, Kernel: KernelDSO(f.DSO)}
			leaf[k] = ps
		}
		ps.Samples++
		weights[k] += float64(s.period)
		total += float64(s.period)
		if len(s.frames) > 1 {
			prof.CallGraph = true
		}
		// A sample without frames (perf could not unwind it, or the
		// output was cut after its header) still counts in the stacks,
		// as an [unknown] one, so that the stacks add up to the samples.
		if len(s.frames) == 0 {
			s.frames = []result.ProfileFrame{f}
		}
		var b strings.Builder
		for _, fr := range s.frames {
			b.WriteString(fr.Symbol)
			b.WriteByte(0)
			b.WriteString(fr.DSO)
			b.WriteByte(0)
		}
		st := stacks[b.String()]
		if st == nil {
			st = &keyedStack{key: b.String(), stack: result.ProfileStack{Frames: s.frames}}
			stacks[st.key] = st
		}
		st.stack.Samples++
	}
	for i, raw := range lines {
		l := strings.TrimRight(raw, "\r")
		if strings.TrimSpace(l) == "" {
			flush()
			continue
		}
		if strings.HasPrefix(strings.TrimSpace(l), "#") {
			continue
		}
		if cur != nil && (l[0] == '\t' || l[0] == ' ') {
			// A line that starts with a tab is a frame whenever it reads
			// as one; one that starts with a space may be the next
			// sample's header (comm is padded), which wins.
			if m := scriptFrameRE.FindStringSubmatch(l); m != nil && (l[0] == '\t' || !scriptHeaderRE.MatchString(l)) {
				cur.frames = append(cur.frames, frame(m))
				continue
			}
		}
		m := scriptHeaderRE.FindStringSubmatch(l)
		if m == nil {
			if cur != nil && l[0] == '\t' {
				// A frame perf could not format (trace output): keep
				// the sample, skip the line.
				continue
			}
			return nil, &result.SyntaxError{File: name, Line: i + 1, Msg: fmt.Sprintf("not a perf script sample or frame: %q", clip(l, 80))}
		}
		flush()
		cur = &scriptSample{comm: strings.TrimSpace(m[1]), event: m[4]}
		if m[3] != "" {
			cur.period, _ = strconv.ParseInt(m[3], 10, 64)
		}
		if prof.Event == "" {
			prof.Event = cur.event
		}
		if fm := scriptFrameRE.FindStringSubmatch(m[5]); fm != nil {
			cur.frames = append(cur.frames, frame(fm))
		}
	}
	flush()
	if prof.Samples == 0 {
		return nil, &result.SyntaxError{File: name, Line: 1, Msg: "no perf script samples (lines such as \"comm 123 [000] 1.000: 250000 cpu-clock: ...\")"}
	}
	for k, s := range leaf {
		if byPeriod && total > 0 {
			s.Overhead = 100 * weights[k] / total
		} else {
			s.Overhead = 100 * float64(s.Samples) / float64(prof.Samples)
		}
		prof.Symbols = append(prof.Symbols, *s)
	}
	SortSymbols(prof.Symbols)
	if prof.CallGraph {
		// The key is the one made when the stack was first seen: making
		// a key in the comparison cost a stack's depth at each of the
		// n log n comparisons.
		keyed := make([]*keyedStack, 0, len(stacks))
		for _, st := range stacks {
			keyed = append(keyed, st)
		}
		sort.Slice(keyed, func(i, j int) bool {
			a, b := keyed[i], keyed[j]
			if a.stack.Samples != b.stack.Samples {
				return a.stack.Samples > b.stack.Samples
			}
			return a.key < b.key
		})
		prof.Stacks = make([]result.ProfileStack, len(keyed))
		for i, st := range keyed {
			prof.Stacks[i] = st.stack
		}
	}
	var ev []string
	for e, n := range others {
		ev = append(ev, fmt.Sprintf("%s (%d samples)", e, n))
	}
	sort.Strings(ev)
	if len(ev) > 0 {
		prof.Warnings = append(prof.Warnings, fmt.Sprintf("%s: kept event %s only; left out %s", name, prof.Event, strings.Join(ev, ", ")))
	}
	return prof, nil
}

type scriptSample struct {
	comm, event string
	period      int64
	frames      []result.ProfileFrame
}

func frame(m []string) result.ProfileFrame {
	return result.ProfileFrame{Symbol: trimOffset(m[2]), DSO: m[3]}
}

// trimOffset drops the "+0x1f" perf puts after a symbol. The hex digits
// cannot hold a '+', so only the last "+0x" can start one.
func trimOffset(sym string) string {
	i := strings.LastIndex(sym, "+0x")
	if i < 0 || i+3 == len(sym) {
		return sym
	}
	for _, c := range []byte(sym[i+3:]) {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return sym
		}
	}
	return sym[:i]
}

// A keyedStack is a call stack and its key in the map of stacks (each
// frame's symbol and object, each followed by a NUL byte). Stacks of equal
// weight sort by the key, so they come in one order whatever order the
// map gives them in, objects included.
type keyedStack struct {
	key   string
	stack result.ProfileStack
}

// SortSymbols orders a symbol table as perf report does: by overhead,
// then by name for a stable order.
func SortSymbols(s []result.ProfileSymbol) {
	sort.SliceStable(s, func(i, j int) bool {
		a, b := s[i], s[j]
		if a.Overhead != b.Overhead {
			return a.Overhead > b.Overhead
		}
		if a.Symbol != b.Symbol {
			return a.Symbol < b.Symbol
		}
		if a.DSO != b.DSO {
			return a.DSO < b.DSO
		}
		return a.Command < b.Command
	})
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
