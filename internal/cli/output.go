package cli

import (
	"context"
	"fmt"

	"github.com/kdelta/kdelta/internal/outfile"
	"github.com/kdelta/kdelta/internal/store"
)

// checkOutput refuses -o PATH before any work, in one line and exit 2:
// a link, a directory, a block device, or one of the command's inputs —
// the files named in inputs and the SQLite store (storeFlag, else
// $KDELTA_STORE, else the default), the same file through links too.
// Every -o is then written by outfile, the one writer.
func checkOutput(ctx context.Context, path, storeFlag string, inputs ...string) error {
	if path == "" {
		return nil
	}
	db := storeLocation(ctx, storeFlag)
	if db == "" {
		db, _ = store.DefaultPath()
	}
	if db != "" {
		inputs = append(inputs, db, db+"-wal", db+"-shm")
	}
	if err := outfile.Check(path, inputs...); err != nil {
		return &exitError{code: ExitUsage, err: fmt.Errorf("-o %s: %w", path, err)}
	}
	return nil
}
