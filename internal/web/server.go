// Package web is kdelta serve: a read-only dashboard over the store. Its
// pages are the HTML reports of internal/report (the page of a comparison
// is the very page `kdelta compare --format html` writes), each at a
// permalink that can go into a mail, with the same data as JSON under
// /api/. It binds loopback unless told otherwise, answers GET and HEAD
// only, and bounds every request's size and time.
package web

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/kdelta/kdelta/internal/report"
	"github.com/kdelta/kdelta/internal/store"
)

// Limits of a request.
const (
	// MaxQuery is the longest query string served, in bytes.
	MaxQuery = 4096
	// MaxHeader bounds a request's header.
	MaxHeader = 16 << 10
	// MaxCompared is the most sets one comparison takes.
	MaxCompared = 8
	// MaxListed is the most sets the list page shows (the newest that
	// match); the API lists every match.
	MaxListed = 500
	// RequestTimeout bounds the work of one request.
	RequestTimeout = 20 * time.Second
)

// Options are kdelta serve's.
type Options struct {
	// Addr is host:port to listen on; the port may be 0.
	Addr string
	// AllowRemote allows an address that is not loopback.
	AllowRemote bool
}

// DefaultAddr is where kdelta serve listens unless told.
const DefaultAddr = "127.0.0.1:8080"

// A Server answers the dashboard's requests from a store.
type Server struct {
	st          store.Store
	mux         *http.ServeMux
	cache       cache
	allowRemote bool
}

// New returns the dashboard over st, which it only reads. Unless
// opt.AllowRemote, it answers only requests whose Host is a loopback name
// (see CheckHost).
func New(st store.Store, opt Options) *Server {
	s := &Server{st: st, mux: http.NewServeMux(), allowRemote: opt.AllowRemote}
	s.routes()
	return s
}

// CheckHost refuses a request's Host that is not a loopback name or
// address, unless remote is allowed. A page of another site can make a
// browser send requests to 127.0.0.1 under its own name (DNS rebinding)
// and read the answers as its own; the Host of such a request is that
// site's name, so a server bound to loopback answers only to loopback
// names.
func CheckHost(host string, allowRemote bool) error {
	if allowRemote {
		return nil
	}
	name := host
	if h, _, err := net.SplitHostPort(host); err == nil {
		name = h
	}
	name = strings.TrimSuffix(strings.Trim(name, "[]"), ".")
	if isLoopback(name) {
		return nil
	}
	return fmt.Errorf("the Host %q is not a loopback name: kdelta serve answers to localhost, 127.0.0.1 and [::1] unless started with --allow-remote", host)
}

// ServeHTTP refuses what is not a bounded GET or HEAD and serves the rest
// within RequestTimeout.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Content-Security-Policy", report.CSP+"; frame-ancestors 'none'")
	if err := CheckHost(r.Host, s.allowRemote); err != nil {
		http.Error(w, err.Error(), http.StatusForbidden)
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		h.Set("Allow", "GET, HEAD")
		http.Error(w, "kdelta serve is read-only: "+r.Method+" is not served", http.StatusMethodNotAllowed)
		return
	}
	if r.ContentLength != 0 {
		http.Error(w, "a GET has no body", http.StatusBadRequest)
		return
	}
	if len(r.URL.RawQuery) > MaxQuery {
		http.Error(w, fmt.Sprintf("query longer than %d bytes", MaxQuery), http.StatusRequestURITooLong)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), RequestTimeout)
	defer cancel()
	s.mux.ServeHTTP(w, r.WithContext(ctx))
}

// CheckAddr refuses an address that is not loopback unless remote is
// allowed.
func CheckAddr(addr string, allowRemote bool) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--addr %q: %w", addr, err)
	}
	if isLoopback(host) || allowRemote {
		return nil
	}
	return fmt.Errorf("--addr %s is not a loopback address: anyone who reaches it could read the store; add --allow-remote to mean it", addr)
}

func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Listen checks opt's address and listens on it.
func Listen(opt Options) (net.Listener, error) {
	addr := opt.Addr
	if addr == "" {
		addr = DefaultAddr
	}
	if err := CheckAddr(addr, opt.AllowRemote); err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("--addr: %w", err)
	}
	return ln, nil
}

// Readers says who can read a server listening on ln: for loopback, the
// users of this machine; else every address it answers on.
func Readers(ln net.Listener) string {
	a := ln.Addr().(*net.TCPAddr)
	if a.IP.IsLoopback() {
		return "users of this machine"
	}
	if !a.IP.IsUnspecified() {
		return "anyone who can reach " + a.String()
	}
	var at []string
	addrs, _ := net.InterfaceAddrs()
	for _, ad := range addrs {
		if n, ok := ad.(*net.IPNet); ok && !n.IP.IsLoopback() {
			at = append(at, net.JoinHostPort(n.IP.String(), fmt.Sprint(a.Port)))
		}
	}
	return "anyone who can reach this machine at " + strings.Join(at, ", ")
}

// Serve serves the dashboard over st on ln until ctx ends, then shuts it
// down.
func Serve(ctx context.Context, ln net.Listener, st store.Store, opt Options) error {
	srv := &http.Server{
		Handler:           New(st, opt),
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       10 * time.Second,
		WriteTimeout:      RequestTimeout + 10*time.Second,
		IdleTimeout:       60 * time.Second,
		MaxHeaderBytes:    MaxHeader,
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := srv.Shutdown(shut)
	if e := <-done; !errors.Is(e, http.ErrServerClosed) && err == nil {
		err = e
	}
	return err
}
