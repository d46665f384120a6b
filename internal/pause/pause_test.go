package pause

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestFor(t *testing.T) {
	if err := For(context.Background(), time.Millisecond); err != nil {
		t.Errorf("a plain wait: %v", err)
	}
	if err := For(context.Background(), 0); err != nil {
		t.Errorf("no wait: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := For(ctx, time.Hour); !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled wait: %v", err)
	}
	if err := For(ctx, 0); err != nil {
		t.Errorf("no wait on a cancelled context: %v, want nil", err)
	}
}
