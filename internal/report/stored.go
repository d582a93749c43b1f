package report

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/store"
)

// WriteSetJSON writes a result set as the JSON of its file (kdelta
// results export without -o).
func WriteSetJSON(w io.Writer, s *result.Set) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(s)
}

// Tagged is the line kdelta results tag prints: the set's id and its
// labels as they now are.
func Tagged(in store.Info) string {
	return in.ID + labelsAfter(in.Labels)
}

// RemovePrompt is the question kdelta results rm asks before it removes
// a set.
func RemovePrompt(in store.Info) string {
	return fmt.Sprintf("remove %s (%s%s, %d runs)? [y/N] ", in.ID, in.Created.UTC().Format("2006-01-02 15:04Z"), labelsAfter(in.Labels), in.Runs)
}

// labelsAfter is the labels as " k=v" each, sorted by name, to follow
// what they label.
func labelsAfter(labels map[string]string) string {
	if len(labels) == 0 {
		return ""
	}
	return " " + labelList(labels)
}
