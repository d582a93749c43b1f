package result

import (
	"fmt"
	"strings"
)

// ParseLabels turns --label values, each k=v, into a label map; a value
// without "=" or with an empty key is an error naming it.
func ParseLabels(labels []string) (map[string]string, error) {
	m := map[string]string{}
	for _, l := range labels {
		k, v, ok := strings.Cut(l, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("--label: %q is not key=value", l)
		}
		m[k] = v
	}
	return m, nil
}
