package driver

import (
	"context"
	"encoding/json"

	"wright/browser/clock"
)

// clockSource answers clock.source: the fake clock's script, which the
// client evaluates in a context's documents and adds to their init scripts
// (browser/clock). It takes no params and touches no browser.
func clockSource(context.Context, *conn, json.RawMessage) (any, error) {
	return map[string]any{"source": clock.Source}, nil
}
