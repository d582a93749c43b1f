package store

import (
	"context"
	"errors"
	"testing"
)

// TestLookupAndTagAll: Lookup finds a set by its whole id only, not by
// the start of one, and TagAll's Info carries the labels as they end up.
func TestLookupAndTagAll(t *testing.T) {
	forEachBackend(t, func(t *testing.T, loc string) {
		ctx := context.Background()
		st := mustOpen(t, loc)
		sets := testSets()
		for _, s := range sets {
			if err := st.Save(ctx, s); err != nil {
				t.Fatal(err)
			}
		}
		in, err := Lookup(ctx, st, sets[0].ID)
		if err != nil || in.ID != sets[0].ID {
			t.Fatalf("Lookup(%s): %+v, %v", sets[0].ID, in, err)
		}
		// The start of two ids (aaaa01 and aaaa03 share 2026070), and
		// the start of one: neither is an id.
		for _, id := range []string{"2026070", sets[1].ID[:10], "nosuch"} {
			if in, err := Lookup(ctx, st, id); !errors.Is(err, ErrNotFound) {
				t.Errorf("Lookup(%s): %+v, %v; want ErrNotFound", id, in, err)
			}
		}
		in, err = TagAll(ctx, st, sets[1].ID, []Label{{"kernel", "6.16-rc1"}, {"host", ""}, {"note", "a b"}})
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]string{"kernel": "6.16-rc1", "note": "a b"}
		if len(in.Labels) != len(want) || in.Labels["kernel"] != want["kernel"] || in.Labels["note"] != want["note"] {
			t.Errorf("labels after TagAll: %v, want %v", in.Labels, want)
		}
	})
}
