//go:build !linux

package sys

import "sync/atomic"

// rawCas32 is sync/atomic's here, where there are no raw threads.
func rawCas32(p *uint32, old, new uint32) bool {
	return atomic.CompareAndSwapUint32(p, old, new)
}
