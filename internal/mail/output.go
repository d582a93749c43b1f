package mail

import (
	"errors"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/kdelta/kdelta/internal/result"
)

func asSyntax(err error, se **result.SyntaxError) bool { return errors.As(err, se) }

// The outputs of commands no importer reads: the powerpc selftests'
// context_switch (a count of switches for every second, one a line) and
// null_syscall ("2546.71 ns     336.17 cycles").
var (
	countLineRE = regexp.MustCompile(`^\s*(\d+)\s*$`)
	nullSysRE   = regexp.MustCompile(`^\s*(\d+(?:\.\d+)?)\s*ns\s+(\d+(?:\.\d+)?)\s*cycles\s*$`)
)

// readCommandOutput reads the output of a command whose output kdelta
// knows beyond its importers, into one set.
func readCommandOutput(c *Command, span []Line) ([]*result.Set, string, bool) {
	spec := c.Map.Spec
	name, _, _ := strings.Cut(spec, ":")
	s := &result.Set{Schema: result.Schema, Tool: "mail " + name, Labels: map[string]string{}, Complete: true, Created: time.Unix(0, 0).UTC()}
	b := &result.Benchmark{Workload: name, Params: map[string]string{}}
	switch {
	case strings.HasPrefix(spec, "context_switch"):
		b.Metrics = []result.Metric{{Name: "switches/s", Unit: "switches/s", Better: result.Higher}}
		elided := false
		for _, l := range span {
			t := strings.TrimSpace(l.Text)
			if t == "..." || t == "…" {
				elided = true
				continue
			}
			m := countLineRE.FindStringSubmatch(t)
			if m == nil {
				return nil, "", false
			}
			v, _ := strconv.ParseFloat(m[1], 64)
			addRun(b, map[string]float64{"switches/s": v}, l.N)
		}
		if elided {
			s.Warnings = append(s.Warnings, "the mail elides lines (\"...\"): only the counts it shows are read")
		}
	case strings.HasPrefix(spec, "syscall") && strings.Contains(c.Text, "null_syscall"):
		b.Metrics = []result.Metric{{Name: "ns/call", Unit: "ns", Better: result.Lower}, {Name: "cycles/call", Unit: "cycles", Better: result.Lower}}
		for _, l := range span {
			m := nullSysRE.FindStringSubmatch(l.Text)
			if m == nil {
				return nil, "", false
			}
			ns, _ := strconv.ParseFloat(m[1], 64)
			cy, _ := strconv.ParseFloat(m[2], 64)
			addRun(b, map[string]float64{"ns/call": ns, "cycles/call": cy}, l.N)
		}
	default:
		return nil, "", false
	}
	if len(b.Runs) == 0 {
		return nil, "", false
	}
	s.Benchmarks = []*result.Benchmark{b}
	return []*result.Set{s}, name + " output", true
}

func addRun(b *result.Benchmark, v map[string]float64, line int) {
	b.Runs = append(b.Runs, &result.Run{Index: len(b.Runs), Status: result.StatusOK, Values: v, Lacks: result.FigAll, Info: map[string]string{"line": strconv.Itoa(line)}})
}

// restoreColumns gives back the column gaps of a table whose alignment
// was lost (a flattened mail keeps one space between cells): a rule of
// dash groups under the header gives the header's cells by their widths,
// and each row splits into its label and the values at its end. Rows
// that keep two spaces or bars are left as they are.
func restoreColumns(text string) string {
	var lines []string
	for _, l := range strings.Split(text, "\n") {
		// A rule run into the row under it: "--- 6.15-rc6 (eln148) no 103,207".
		if t := strings.TrimSpace(l); strings.HasPrefix(t, "--- ") && hasDigit(t) {
			lines = append(lines, "---", strings.TrimSpace(t[4:]))
			continue
		}
		lines = append(lines, l)
	}
	var widths []int
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if t == "" || strings.Contains(t, "|") || strings.Contains(t, "  ") || strings.Contains(t, "\t") {
			continue
		}
		if ruleGroupsRE.MatchString(t) {
			widths = nil
			for _, g := range strings.Fields(t) {
				widths = append(widths, len(g))
			}
			if i > 0 && len(widths) > 1 {
				lines[i-1] = splitByWidths(strings.TrimSpace(lines[i-1]), widths)
			}
			lines[i] = strings.Join(strings.Fields(t), "  ")
			continue
		}
		if r, ok := splitRow(t); ok {
			lines[i] = r
		}
	}
	return strings.Join(lines, "\n")
}

var ruleGroupsRE = regexp.MustCompile(`^-{3,}(?:\s+-{3,})*$`)

// splitByWidths splits a header whose words add up to the widths of the
// rule under it.
func splitByWidths(h string, widths []int) string {
	f := strings.Fields(h)
	var cells []string
	cur := ""
	wi := 0
	for _, w := range f {
		if cur != "" {
			cur += " "
		}
		cur += w
		if wi < len(widths) && len(cur) >= widths[wi] {
			cells = append(cells, cur)
			cur = ""
			wi++
		}
	}
	if cur != "" {
		cells = append(cells, cur)
	}
	if len(cells) != len(widths) {
		return h
	}
	return strings.Join(cells, "  ")
}

var valueTokenRE = regexp.MustCompile(`^(?:[-+~]?\d[\d,]*(?:\.\d+)?(?:%|[a-zµ]{1,3})?|\([-+]?\d[\d,]*(?:\.\d+)?%\)|baseline|yes|no|n/a|-)$`)

// splitRow splits a row with single spaces into a label and its values:
// the values are the tokens at its end that are numbers, percentages,
// "(-32%)" remarks, yes/no or "baseline".
func splitRow(t string) (string, bool) {
	f := strings.Fields(t)
	k := len(f)
	for k > 0 && valueTokenRE.MatchString(strings.ToLower(f[k-1])) {
		k--
	}
	if k == len(f) || k == 0 || !hasDigit(strings.Join(f[k:], " ")) {
		return "", false
	}
	cells := []string{strings.Join(f[:k], " ")}
	vals := f[k:]
	for i := 0; i < len(vals); i++ {
		// A remark stays with the value before it: "70,281 (-32%)".
		if i+1 < len(vals) && strings.HasPrefix(vals[i+1], "(") {
			cells = append(cells, vals[i]+" "+vals[i+1])
			i++
			continue
		}
		cells = append(cells, vals[i])
	}
	return strings.Join(cells, "  "), true
}
