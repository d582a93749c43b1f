package web

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestCacheSharesAndExpires: concurrent requests for one answer compute
// it once; a fresh answer is served again; a stale one, or a failure, is
// computed anew; the entries stay bounded.
func TestCacheSharesAndExpires(t *testing.T) {
	c := &cache{ttl: 50 * time.Millisecond}
	var made atomic.Int32
	slow := func() answer {
		made.Add(1)
		time.Sleep(20 * time.Millisecond)
		return answer{code: 200, body: []byte("page")}
	}
	var wg sync.WaitGroup
	for range 20 {
		wg.Go(func() {
			if a := c.get("/", slow); string(a.body) != "page" {
				t.Errorf("answer %q", a.body)
			}
		})
	}
	wg.Wait()
	if n := made.Load(); n != 1 {
		t.Errorf("20 concurrent requests computed the answer %d times", n)
	}
	c.get("/", slow)
	if n := made.Load(); n != 1 {
		t.Errorf("a fresh answer was computed again")
	}
	time.Sleep(60 * time.Millisecond)
	c.get("/", slow)
	if n := made.Load(); n != 2 {
		t.Errorf("a stale answer was served: %d computations", n)
	}
	fail := func() answer { made.Add(1); return answer{code: 503} }
	c.get("/x", fail)
	c.get("/x", fail)
	if n := made.Load(); n != 4 {
		t.Errorf("a failure was kept: %d computations", n)
	}
	for i := range 3 * maxCached {
		c.get(fmt.Sprint("/", i), func() answer { return answer{code: 200} })
	}
	if len(c.m) > maxCached {
		t.Errorf("%d answers kept, at most %d", len(c.m), maxCached)
	}
}
