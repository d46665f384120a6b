//go:build !linux

package browser

// BecomeSubreaper is a no-op outside Linux.
func BecomeSubreaper() error { return nil }
