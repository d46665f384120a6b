package model

import (
	"context"
	"time"
)

// SetSleep replaces how an HTTP client waits between attempts, so tests
// can see the waits without sleeping through them.
func SetSleep(c Client, sleep func(ctx context.Context, d time.Duration) error) {
	if t, ok := c.(*tracedClient); ok {
		c = t.next
	}
	switch c := c.(type) {
	case *openAIClient:
		c.sleep = sleep
	case *responsesClient:
		c.sleep = sleep
	case *anthropicClient:
		c.sleep = sleep
	default:
		panic("SetSleep: not an HTTP client")
	}
}

// RetryAfter exposes the Retry-After reader to the tests.
var RetryAfter = retryAfter
