package driver

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// A closed page keeps answering page.url with the URL it last showed, as
// Playwright's page.url does in a "close" handler.
func TestPageURLAfterClose(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte("<p>hi</p>"))
	}))
	defer srv.Close()
	c, _, _, _ := pipeDriverWith(t, ServerOptions{})
	c.call("browser.launch", map[string]any{})
	page := c.call("browser.new_page", map[string]any{})["page"]
	c.call("page.goto", map[string]any{"page": page, "url": srv.URL + "/empty.html"})
	c.call("page.close", map[string]any{"page": page})
	if u := c.call("page.url", map[string]any{"page": page})["url"]; u != srv.URL+"/empty.html" {
		t.Errorf("page.url of the closed page = %v, want %s", u, srv.URL+"/empty.html")
	}
}
