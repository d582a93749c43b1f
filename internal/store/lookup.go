package store

import (
	"context"
	"fmt"
)

// Lookup returns the Info of the set with exactly this id, in one List;
// the error wraps ErrNotFound when there is none.
func Lookup(ctx context.Context, st Store, id string) (Info, error) {
	infos, err := st.List(ctx, Filter{IDPrefix: id})
	if err != nil {
		return Info{}, err
	}
	for _, in := range infos {
		if in.ID == id {
			return in, nil
		}
	}
	return Info{}, fmt.Errorf("result set %s: %w", id, ErrNotFound)
}

// TagAll sets each label on set id, in order, each Tag its own
// transaction (an empty value removes the label), and returns the set's
// Info as it then is.
func TagAll(ctx context.Context, st Store, id string, labels []Label) (Info, error) {
	for _, l := range labels {
		if err := st.Tag(ctx, id, l.Name, l.Value); err != nil {
			return Info{}, err
		}
	}
	return Lookup(ctx, st, id)
}
