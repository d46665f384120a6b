package demo

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"sync/atomic"
	"time"
)

// The shop has two versions. v2 is the same shop after a redesign: the
// search moved into the header, its field is labelled "Find a book" and its
// button "Go", so a script written for v1 no longer finds them. Its files
// are those of site_v2/ laid over site/.
//
//go:embed site_v2
var siteV2 embed.FS

// Versions are the shop's versions, oldest first.
var Versions = []int{1, 2}

// Shop is the demo shop served on loopback; its version can change while
// it runs, as a real site changes under a saved script.
type Shop struct {
	// URL is the shop's address, ending in "/".
	URL     string
	version atomic.Int32
	srv     *http.Server
	done    chan struct{}
}

// ServeShop serves the shop at version 1 on addr ("127.0.0.1:0" picks a
// free port) until Close.
func ServeShop(addr string) (*Shop, error) {
	v1, err := fs.Sub(site, "site")
	if err != nil {
		return nil, err
	}
	v2, err := fs.Sub(siteV2, "site_v2")
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("demo shop: %w", err)
	}
	s := &Shop{URL: "http://" + ln.Addr().String() + "/", done: make(chan struct{})}
	s.version.Store(1)
	files := map[int]http.Handler{1: http.FileServerFS(v1), 2: http.FileServerFS(overlay{top: v2, under: v1})}
	s.srv = &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			// Pages must not come from a cache of the other version.
			w.Header().Set("Cache-Control", "no-store")
			files[s.Version()].ServeHTTP(w, r)
		}),
		ReadHeaderTimeout: 10 * time.Second,
	}
	go func() {
		defer close(s.done)
		_ = s.srv.Serve(ln)
	}()
	return s, nil
}

// Version is the version being served.
func (s *Shop) Version() int { return int(s.version.Load()) }

// SetVersion changes the version served from the next request on.
func (s *Shop) SetVersion(v int) error {
	if v != 1 && v != 2 {
		return fmt.Errorf("demo shop: no version %d (there are 1 and 2)", v)
	}
	s.version.Store(int32(v))
	return nil
}

// Close stops serving and waits for the server to end.
func (s *Shop) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := s.srv.Shutdown(ctx)
	if err != nil {
		err = s.srv.Close()
	}
	<-s.done
	return err
}

// overlay is a file system whose files come from top when it has them,
// else from under.
type overlay struct{ top, under fs.FS }

func (o overlay) Open(name string) (fs.File, error) {
	f, err := o.top.Open(name)
	if err == nil || !errors.Is(err, fs.ErrNotExist) {
		return f, err
	}
	return o.under.Open(name)
}
