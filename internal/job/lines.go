package job

import (
	"strconv"
	"strings"
)

// The TOML decoder reports the line of a syntax error, but not where a
// decoded key was: lineIndex finds, for every key of a job file, the line
// that defines it, so that an unknown key or a value of the wrong type is
// reported as file:line.

// A keyPath names a key: table names, array-of-tables indexes ("[1]") and
// key names, outermost first.
type keyPath []string

func (p keyPath) String() string { return strings.Join(p, "\x1f") }

// child returns p extended by one key or index, without sharing p's array.
func (p keyPath) child(s string) keyPath {
	return append(append(keyPath(nil), p...), s)
}

// display writes the path as TOML would (variant[1].set).
func (p keyPath) display() string {
	var b strings.Builder
	for i, s := range p {
		switch {
		case strings.HasPrefix(s, "["):
			b.WriteString(s)
		default:
			if i > 0 {
				b.WriteByte('.')
			}
			if bareKey(s) {
				b.WriteString(s)
			} else {
				b.WriteString(`"` + strings.ReplaceAll(s, `"`, `\"`) + `"`)
			}
		}
	}
	return b.String()
}

func bareKey(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-') {
			return false
		}
	}
	return true
}

// lineIndex maps key paths to the line that defines them.
type lineIndex map[string]int

// line returns the line of p or of its nearest ancestor that has one; 0
// when none has.
func (ix lineIndex) line(p keyPath) int {
	for n := len(p); n > 0; n-- {
		if l, ok := ix[p[:n].String()]; ok {
			return l
		}
	}
	return 0
}

// indexLines scans TOML source for table headers and key/value lines,
// tracking arrays of tables by their index and skipping the inside of
// multi-line strings and arrays.
func indexLines(src string) lineIndex {
	ix := lineIndex{}
	count := map[string]int{} // array-of-tables path → elements so far
	var prefix keyPath
	resolve := func(segs []string) keyPath {
		var p keyPath
		for _, s := range segs {
			p = p.child(s)
			if n := count[p.String()]; n > 0 {
				p = p.child("[" + strconv.Itoa(n-1) + "]")
			}
		}
		return p
	}
	depth := 0     // open brackets of a value continued on later lines
	inString := "" // the closing delimiter of a multi-line string
	for i, line := range strings.Split(src, "\n") {
		n := i + 1
		if inString != "" || depth > 0 {
			inString, depth = scanValue(line, inString, depth)
			continue
		}
		t := strings.TrimSpace(line)
		switch {
		case t == "" || t[0] == '#':
		case strings.HasPrefix(t, "[["):
			end := strings.Index(t, "]]")
			if end < 0 {
				continue
			}
			segs := splitKey(t[2:end])
			parent := resolve(segs[:len(segs)-1])
			base := parent.child(segs[len(segs)-1])
			idx := count[base.String()]
			count[base.String()] = idx + 1
			prefix = base.child("[" + strconv.Itoa(idx) + "]")
			ix[prefix.String()] = n
			if _, ok := ix[base.String()]; !ok {
				ix[base.String()] = n
			}
		case t[0] == '[':
			end := strings.LastIndex(t, "]")
			if end < 0 {
				continue
			}
			prefix = resolve(splitKey(t[1:end]))
			ix[prefix.String()] = n
		default:
			eq := keyEnd(t)
			if eq < 0 {
				continue
			}
			p := prefix
			for _, s := range splitKey(t[:eq]) {
				p = p.child(s)
			}
			ix[p.String()] = n
			inString, depth = scanValue(t[eq+1:], "", 0)
		}
	}
	return ix
}

// keyEnd returns the index of the '=' that ends the key of a key/value
// line, outside quotes, or -1.
func keyEnd(t string) int {
	var q byte
	for i := 0; i < len(t); i++ {
		c := t[i]
		switch {
		case q != 0:
			if c == '\\' && q == '"' {
				i++
			} else if c == q {
				q = 0
			}
		case c == '"' || c == '\'':
			q = c
		case c == '=':
			return i
		}
	}
	return -1
}

// splitKey splits a dotted key into its parts, unquoting quoted parts.
func splitKey(k string) []string {
	var parts []string
	var cur strings.Builder
	var q byte
	for i := 0; i < len(k); i++ {
		c := k[i]
		switch {
		case q != 0:
			if c == '\\' && q == '"' && i+1 < len(k) {
				i++
				cur.WriteByte(k[i])
			} else if c == q {
				q = 0
			} else {
				cur.WriteByte(c)
			}
		case c == '"' || c == '\'':
			q = c
		case c == '.':
			parts = append(parts, cur.String())
			cur.Reset()
		case c == ' ' || c == '\t':
		default:
			cur.WriteByte(c)
		}
	}
	return append(parts, cur.String())
}

// scanValue follows a value over one line: strings (a multi-line one may
// stay open: its closing delimiter is returned), brackets (their depth is
// returned) and a comment, which ends the line.
func scanValue(s, inString string, depth int) (string, int) {
	for i := 0; i < len(s); i++ {
		if inString != "" {
			if inString == `"""` && s[i] == '\\' {
				i++
				continue
			}
			if strings.HasPrefix(s[i:], inString) {
				i += len(inString) - 1
				inString = ""
			}
			continue
		}
		switch c := s[i]; {
		case strings.HasPrefix(s[i:], `"""`) || strings.HasPrefix(s[i:], `'''`):
			inString = s[i : i+3]
			i += 2
		case c == '"' || c == '\'':
			// A one-line string: find its end.
			for j := i + 1; j < len(s); j++ {
				if c == '"' && s[j] == '\\' {
					j++
					continue
				}
				if s[j] == c {
					i = j
					break
				}
			}
		case c == '[' || c == '{':
			depth++
		case c == ']' || c == '}':
			if depth > 0 {
				depth--
			}
		case c == '#':
			return inString, depth
		}
	}
	return inString, depth
}
