package sys

// A CancelWord makes a worker's system calls cost in user space what
// they cost in a multi-threaded C program linked with glibc before 2.41,
// the C references' threads (perf bench -T and -t, hackbench -T, the
// powerpc context_switch selftest). There, read, write and the other
// cancellation points bracket the system call with
// __pthread_enable_asynccancel and __pthread_disable_asynccancel: each
// loads the thread's cancelhandling word and compare-and-swaps the
// asynchronous-cancellation bit into it, then out of it again. Two
// atomic read-modify-writes per call are a few percent of a pipe round
// trip on one CPU. glibc 2.41 dropped the bracket (commit 89b53077d2a5,
// "nptl: Fix Race conditions in pthread cancellation [BZ#12683]"): the
// call only tests the word first, as a single-threaded process's calls
// skip it altogether.
//
// A CancelWord with Toggle false does nothing. Keep each on memory of
// its own worker, as glibc keeps it in the thread's struct pthread: two
// workers' words on one cache line would cost more than glibc's.
type CancelWord struct {
	handling uint32
	// Toggle makes Enter and Leave do glibc's compare-and-swaps.
	Toggle bool
}

// cancelTypeAsync is glibc's CANCELTYPE_BITMASK.
const cancelTypeAsync = 2

// Enter is __pthread_enable_asynccancel: it sets the asynchronous bit
// and returns the word as it was, for Leave.
//
//go:nosplit
//go:norace
func (w *CancelWord) Enter() uint32 {
	if !w.Toggle {
		return 0
	}
	old := w.handling
	for {
		v := old | cancelTypeAsync
		if v == old || rawCas32(&w.handling, old, v) {
			return old
		}
		old = w.handling
	}
}

// Leave is __pthread_disable_asynccancel: unless the bit was set before
// Enter, it clears it.
//
//go:nosplit
//go:norace
func (w *CancelWord) Leave(old uint32) {
	if !w.Toggle || old&cancelTypeAsync != 0 {
		return
	}
	for {
		v := w.handling
		if rawCas32(&w.handling, v, v&^cancelTypeAsync) {
			return
		}
	}
}
