package web

import (
	"net/http"
	"sync"
	"time"
)

// CacheTTL is how long an answer is served again to the same request. The
// SQLite store has one connection, so fifty readers of a 10,000-set list
// would otherwise queue behind each other; a page is at most this old.
const CacheTTL = 2 * time.Second

// maxCached bounds the answers kept.
const maxCached = 256

// An answer is a rendered response.
type answer struct {
	code   int
	header http.Header
	body   []byte
}

// A cache keeps each request's answer for CacheTTL, and makes concurrent
// identical requests wait for the one that computes it.
type cache struct {
	ttl time.Duration // 0 means CacheTTL
	mu  sync.Mutex
	m   map[string]*cacheEntry
}

type cacheEntry struct {
	done chan struct{} // closed when a is set
	a    answer
	at   time.Time
}

// get returns the answer for key, computing it with compute when none is
// fresh; concurrent callers of one key share one computation.
func (c *cache) get(key string, compute func() answer) answer {
	now := time.Now()
	c.mu.Lock()
	if c.ttl == 0 {
		c.ttl = CacheTTL
	}
	if c.m == nil {
		c.m = map[string]*cacheEntry{}
	}
	if e, ok := c.m[key]; ok {
		select {
		case <-e.done:
			if now.Sub(e.at) < c.ttl {
				c.mu.Unlock()
				return e.a
			}
		default:
			c.mu.Unlock()
			<-e.done
			return e.a
		}
	}
	if len(c.m) >= maxCached {
		c.evict(now)
	}
	e := &cacheEntry{done: make(chan struct{})}
	c.m[key] = e
	c.mu.Unlock()
	defer close(e.done)
	e.a = compute()
	e.at = time.Now()
	if e.a.code >= 500 {
		// A timeout or a failure is not kept for the next request.
		e.at = time.Time{}
	}
	return e.a
}

// evict drops the stale answers, and every answer when none was stale.
func (c *cache) evict(now time.Time) {
	for k, e := range c.m {
		select {
		case <-e.done:
			if now.Sub(e.at) >= c.ttl {
				delete(c.m, k)
			}
		default:
		}
	}
	if len(c.m) >= maxCached {
		for k, e := range c.m {
			select {
			case <-e.done:
				delete(c.m, k)
			default:
			}
		}
	}
}
