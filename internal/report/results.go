package report

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/store"
)

// WriteInfos lists stored result sets, one line per set, as kdelta
// results ls prints them. Times are UTC, the same on every machine of a
// lab that shares a store.
func WriteInfos(w io.Writer, infos []store.Info) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tCREATED (UTC)\tKERNEL\tRUNS\tWORKLOADS\tLABELS")
	incomplete := false
	for _, in := range infos {
		runs := fmt.Sprint(in.Runs)
		if !in.Complete {
			runs += "*"
			incomplete = true
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", in.ID, in.Created.UTC().Format("2006-01-02 15:04:05"),
			OrDash(Printable(in.Kernel)), runs, OrDash(strings.Join(in.Workload, ",")), OrDash(labelList(in.Labels)))
	}
	tw.Flush()
	if incomplete {
		fmt.Fprintln(w, "* incomplete: interrupted, killed or still running")
	}
}

// Selects says what a label query selects for a comparison: one set, or
// several, which compare and explain take as sessions of one side.
func Selects(query string, n int) string {
	switch n {
	case 0:
		return query + " selects no stored set"
	case 1:
		return query + " selects 1 stored set"
	}
	return fmt.Sprintf("%s selects %d stored sets: compare and explain take them as %d sessions of one side", query, n, n)
}

// labelList is the labels as k=v, sorted by name, a space apart.
// Keys and values are made Printable.
func labelList(labels map[string]string) string {
	return result.FormatPairs(printableLabels(labels), " ")
}

// WriteInfosJSON lists stored result sets as a JSON array.
func WriteInfosJSON(w io.Writer, infos []store.Info) error {
	type entry struct {
		ID        string            `json:"id"`
		Created   time.Time         `json:"created"`
		Updated   time.Time         `json:"updated"`
		Kernel    string            `json:"kernel"`
		Tool      string            `json:"tool"`
		Runs      int               `json:"runs"`
		Complete  bool              `json:"complete"`
		Workloads []string          `json:"workloads"`
		Labels    map[string]string `json:"labels"`
	}
	out := []entry{}
	for _, in := range infos {
		out = append(out, entry{in.ID, in.Created, in.Updated, in.Kernel, in.Tool, in.Runs, in.Complete, in.Workload, in.Labels})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
