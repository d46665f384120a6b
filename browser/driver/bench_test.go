package driver

import "testing"

// BenchmarkClickRPC measures one locator.click round trip through the
// JSON-RPC server over a pipe: parse, resolve, actionability, input, answer.
func BenchmarkClickRPC(b *testing.B) {
	c, _, _, _ := pipeDriver(b)
	c.call("browser.launch", map[string]any{})
	page := c.call("browser.new_page", map[string]any{})["page"]
	c.call("page.goto", map[string]any{"page": page, "url": site.URL + "/buttons.html"})
	params := map[string]any{"page": page, "selector": `role=listitem >> nth=0 >> role=button[name="Add to cart"]`}
	c.call("locator.click", params)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		c.call("locator.click", params)
	}
}
