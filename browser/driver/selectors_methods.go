package driver

import (
	"context"
	"encoding/json"
)

func init() {
	methods["selectors.register"] = func(ctx context.Context, c *conn, raw json.RawMessage) (any, error) {
		var sp struct {
			Browser       string `json:"browser"`
			Name          string `json:"name"`
			Source        string `json:"source"`
			ContentScript bool   `json:"content_script"`
		}
		if err := decode(raw, &sp); err != nil {
			return nil, err
		}
		b, err := c.s.browserParam(sp.Browser)
		if err != nil {
			return nil, err
		}
		return map[string]any{}, b.RegisterSelectorEngine(sp.Name, sp.Source, sp.ContentScript)
	}
}
