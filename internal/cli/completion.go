package cli

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/kdelta/kdelta/internal/workload"
)

// completeWorkloads completes a WORKLOAD[:k=v,...] argument (kdelta run,
// ab): the workload names, then after "name:" each parameter as
// "name:...,param=", then a parameter's choices where it has them
// (issue 35 point 11). cobra's completion command (bash, zsh, fish,
// powershell) asks it.
func completeWorkloads(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	name, rest, hasParams := strings.Cut(toComplete, ":")
	if !hasParams {
		var out []string
		for _, n := range workload.Names() {
			if strings.HasPrefix(n, name) {
				w, _ := workload.Lookup(n)
				out = append(out, n+"\t"+firstLine(w.Doc()))
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
	}
	w, ok := workload.Lookup(name)
	if !ok {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	// done is what is typed before the pair being completed.
	done, cur := name+":", rest
	if i := strings.LastIndexByte(rest, ','); i >= 0 {
		done, cur = name+":"+rest[:i+1], rest[i+1:]
	}
	var out []string
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
		return out, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
	}
	for _, p := range w.Params() {
		if strings.HasPrefix(p.Name, cur) && !strings.Contains(","+rest, ","+p.Name+"=") {
			out = append(out, done+p.Name+"=\t"+firstLine(p.Doc))
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}
