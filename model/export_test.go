package model

import (
	"context"
	"time"
)

// SetSleep replaces how an OpenAI-compatible client waits between attempts,
// so tests can see the waits without sleeping through them.
func SetSleep(c Client, sleep func(ctx context.Context, d time.Duration) error) {
	if t, ok := c.(*tracedClient); ok {
		c = t.next
	}
	c.(*openAIClient).sleep = sleep
}

// RetryAfter exposes the Retry-After reader to the tests.
var RetryAfter = retryAfter
