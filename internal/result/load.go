package result

import (
	"context"
	"fmt"
	"io"
	"os"
	"sync"
)

// Input limits: the most kdelta reads of each kind of input. A file that
// does not end (/dev/zero) or is larger is refused with its kind's limit
// named, never read into memory without bound.
const (
	// MaxSetBytes bounds a result set's JSON: a long run with raw
	// latencies kept (MaxRaw per run) is tens of MiB.
	MaxSetBytes = 512 << 20
	// MaxImportBytes bounds another tool's output read by kdelta import
	// (and by the commands that import a file they are given).
	MaxImportBytes = 256 << 20
)

// ReadInput reads path whole, at most limit bytes; what names the kind of
// input ("a result set") in the error of a larger one. It gives up when
// ctx is done, with an error wrapping ctx's: a FIFO that no one writes, or
// a device that never ends, holds kdelta no longer than an interrupt.
// It is the one reader of the files a user names for kdelta to load.
func ReadInput(ctx context.Context, path string, limit int64, what string) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	type read struct {
		data []byte
		err  error
	}
	done := make(chan read, 1)
	var (
		mu       sync.Mutex
		f        *os.File
		canceled bool
	)
	go func() {
		// Opening a FIFO waits for a writer, which may never come: the
		// open is in here too, where an interrupt does not wait for it.
		file, err := os.Open(path)
		if err != nil {
			done <- read{err: err}
			return
		}
		mu.Lock()
		if canceled {
			mu.Unlock()
			file.Close()
			return
		}
		f = file
		mu.Unlock()
		defer file.Close()
		data, err := readLimited(file, path, limit, what)
		done <- read{data, err}
	}()
	select {
	case r := <-done:
		return r.data, r.err
	case <-ctx.Done():
		mu.Lock()
		canceled = true
		if f != nil {
			// Ends a read in progress (a pipe's), or the next one.
			f.Close()
		}
		mu.Unlock()
		return nil, fmt.Errorf("%s: reading stopped: %w", path, ctx.Err())
	}
}

// readLimited reads f (opened from path) to its end, refusing more than
// limit bytes. A file that is not regular is read in blocks, kept apart
// until its end, so that one that never ends costs limit bytes of memory
// before it is refused, not the slack of a slice grown past the limit.
func readLimited(f *os.File, path string, limit int64, what string) ([]byte, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if fi.IsDir() {
		return nil, fmt.Errorf("%s: a directory, not %s", path, what)
	}
	if fi.Mode().IsRegular() {
		if fi.Size() > limit {
			return nil, tooLarge(path, limit, what)
		}
		data, err := io.ReadAll(io.LimitReader(f, limit+1))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if int64(len(data)) > limit {
			return nil, tooLarge(path, limit, what)
		}
		return data, nil
	}
	const block = 4 << 20
	var blocks [][]byte
	var total int64
	for {
		b := make([]byte, block)
		n, err := io.ReadFull(f, b)
		total += int64(n)
		if total > limit {
			return nil, tooLarge(path, limit, what)
		}
		blocks = append(blocks, b[:n])
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	data := make([]byte, 0, total)
	for _, b := range blocks {
		data = append(data, b...)
	}
	return data, nil
}

func tooLarge(path string, limit int64, what string) error {
	return fmt.Errorf("%s: more than %s, the most kdelta reads of %s", path, sizeText(limit), what)
}

// sizeText writes a limit in MiB or GiB.
func sizeText(n int64) string {
	if n >= 1<<30 && n%(1<<30) == 0 {
		return fmt.Sprintf("%d GiB", n>>30)
	}
	return fmt.Sprintf("%d MiB", n>>20)
}

// LoadContext reads the result set at path, as Load does, through
// ReadInput: bounded, and given up when ctx is done.
func LoadContext(ctx context.Context, path string) (*Set, error) {
	data, err := ReadInput(ctx, path, MaxSetBytes, "a result set")
	if err != nil {
		return nil, err
	}
	return Decode(path, data)
}

// Check tells whether s holds what every reader of a set takes for
// granted: no null benchmark, run or metric, a workload for every
// benchmark and a name for every metric. Decode, and so every loader of a
// set (a file, the store, a guest's, an import), checks it before
// returning a set; the error names the first thing that is wrong.
func (s *Set) Check() error {
	for i, b := range s.Benchmarks {
		if b == nil {
			return fmt.Errorf("benchmark %d is null", i+1)
		}
		if b.Workload == "" {
			return fmt.Errorf("benchmark %d has no workload", i+1)
		}
		for j, m := range b.Metrics {
			if m.Name == "" {
				return fmt.Errorf("benchmark %d (%s): metric %d has no name", i+1, b.Workload, j+1)
			}
		}
		for j, r := range b.Runs {
			if r == nil {
				return fmt.Errorf("benchmark %d (%s): run %d is null", i+1, b.Workload, j+1)
			}
			if r.Latency != nil && r.Latency.Count < 0 {
				return fmt.Errorf("benchmark %d (%s): run %d: a negative latency count", i+1, b.Workload, j+1)
			}
		}
		for name, sum := range b.Summaries {
			if sum.N < 0 {
				return fmt.Errorf("benchmark %d (%s): summary of %s: a negative n", i+1, b.Workload, name)
			}
		}
	}
	if f := checkValues(s, false); f != nil {
		return f
	}
	return nil
}
