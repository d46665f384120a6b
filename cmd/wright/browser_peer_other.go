//go:build !linux

package main

import (
	"errors"
	"net"
)

// peerUID is unknown off Linux: the session's socket is guarded by its
// folder and its mode alone there (docs/security.md, Platforms).
func peerUID(net.Conn) (int, error) { return -1, errPeerUnknown }

var errPeerUnknown = errors.New("the peer's uid cannot be read on this platform")
