//go:build !linux

package keyring

// NoDump has no equivalent here; the re-exec without credentials still
// keeps them out of what other processes can read of the environment.
func NoDump() error { return nil }
