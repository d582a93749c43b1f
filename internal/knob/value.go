package knob

import (
	"fmt"
	"strings"
)

// A Value is a knob file's content as read: the value in effect and, for
// files that list their choices, the choices.
type Value struct {
	// Selected is the value in effect: the marked choice of a list
	// ("madvise" from "always [madvise] never", "full" from
	// "none voluntary (full) lazy"), else the trimmed content.
	Selected string
	// Choices are the values the file lists, marked one included; nil
	// when the file is not a list of choices.
	Choices []string
}

// ParseValue reads a knob file's content. Lists of choices mark the one in
// effect with brackets (sysfs: transparent_hugepage/enabled, the block
// scheduler) or parentheses (debugfs sched/preempt, whose lines end in a
// space: "none voluntary (full) lazy \n"; kernels from 7.0 print
// "full (lazy) "). Content on more than one line is an error: it cannot be
// written back as one value.
func ParseValue(raw string) (Value, error) {
	text := strings.TrimSpace(raw)
	if strings.ContainsAny(text, "\n\x00") {
		return Value{}, fmt.Errorf("content spans lines (%q): not a value kdelta can write back", truncate(text, 40))
	}
	fields := strings.Fields(text)
	sel, marked := "", 0
	choices := make([]string, 0, len(fields))
	for _, f := range fields {
		inner, ok := markedChoice(f)
		if ok {
			marked++
			sel = inner
			choices = append(choices, inner)
			continue
		}
		if strings.ContainsAny(f, "[]()") {
			// Brackets that do not wrap a whole word: not a list.
			return Value{Selected: text}, nil
		}
		choices = append(choices, f)
	}
	if marked != 1 {
		return Value{Selected: text}, nil
	}
	return Value{Selected: sel, Choices: choices}, nil
}

// markedChoice returns x for "[x]" or "(x)".
func markedChoice(f string) (string, bool) {
	if len(f) < 3 {
		return "", false
	}
	open, close := f[0], f[len(f)-1]
	if !(open == '[' && close == ']' || open == '(' && close == ')') {
		return "", false
	}
	inner := f[1 : len(f)-1]
	if strings.ContainsAny(inner, "[]()") {
		return "", false
	}
	return inner, true
}

// has tells whether v is one of the choices.
func (v Value) has(x string) bool {
	for _, c := range v.Choices {
		if c == x {
			return true
		}
	}
	return false
}

// same tells whether a value read back equals the value written, taking a
// boolean module parameter's Y and N for the 1 and 0 it was given.
func same(read, written string) bool {
	if read == written {
		return true
	}
	switch {
	case read == "Y" && (written == "1" || written == "y"):
		return true
	case read == "N" && (written == "0" || written == "n"):
		return true
	}
	return false
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
