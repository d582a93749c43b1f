package workload

import "strings"

// Complete completes a WORKLOAD[:k=v,...] argument as a shell would ask
// (kdelta run, ab; issue 35 point 11): the workload names, each with its
// first line of documentation after a tab; after "name:" each parameter
// not given yet as "name:...,param="; after "param=" the parameter's
// choices where it has them.
func Complete(toComplete string) []string {
	name, rest, hasParams := strings.Cut(toComplete, ":")
	var out []string
	if !hasParams {
		for _, n := range Names() {
			if strings.HasPrefix(n, name) {
				w, _ := Lookup(n)
				out = append(out, n+"\t"+firstLine(w.Doc()))
			}
		}
		return out
	}
	w, ok := Lookup(name)
	if !ok {
		return nil
	}
	// done is what is typed before the pair being completed.
	done, cur := name+":", rest
	if i := strings.LastIndexByte(rest, ','); i >= 0 {
		done, cur = name+":"+rest[:i+1], rest[i+1:]
	}
	if k, v, isValue := strings.Cut(cur, "="); isValue {
		for _, p := range w.Params() {
			if p.Name != k {
				continue
			}
			for _, c := range p.Choices {
				if strings.HasPrefix(c, v) {
					out = append(out, done+k+"="+c)
				}
			}
		}
		return out
	}
	for _, p := range w.Params() {
		if strings.HasPrefix(p.Name, cur) && !strings.Contains(","+rest, ","+p.Name+"=") {
			out = append(out, done+p.Name+"=\t"+firstLine(p.Doc))
		}
	}
	return out
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}
