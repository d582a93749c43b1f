package result

import (
	"fmt"
	"strings"
	"unicode"
)

// ParseLabels turns --label values, each k=v, into a label map; a value
// without "=", with an empty key, a key holding / or , (which a label
// query could not name) or a control character anywhere (which would
// reach a terminal raw) is an error naming it.
func ParseLabels(labels []string) (map[string]string, error) {
	m := map[string]string{}
	for _, l := range labels {
		k, v, ok := strings.Cut(l, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("--label: %q is not key=value", l)
		}
		if err := CheckLabel(l, k); err != nil {
			return nil, fmt.Errorf("--label: %w", err)
		}
		m[k] = v
	}
	return m, nil
}

// CheckLabel refuses label l, key k (of --label or results tag), that is
// not one line a query can name: a control character anywhere, or a key
// holding / or ,.
func CheckLabel(l, k string) error {
	if strings.ContainsFunc(l, unicode.IsControl) {
		return fmt.Errorf("%q holds a control character (a newline, an escape): a label is one line of text", l)
	}
	if strings.ContainsAny(k, "/,") {
		return fmt.Errorf("key %q holds %q: a label's key has no / or , (they separate paths and the labels of a query)", k, string(k[strings.IndexAny(k, "/,")]))
	}
	return nil
}
