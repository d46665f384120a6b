package main

import (
	"errors"
	"fmt"
	"net"
	"syscall"
)

// peerUID is the uid of the process at the other end of a session's
// socket, as the kernel recorded it when that process connected
// (SO_PEERCRED): what the process says of itself plays no part.
func peerUID(conn net.Conn) (int, error) {
	uc, ok := conn.(*net.UnixConn)
	if !ok {
		return -1, fmt.Errorf("not a Unix socket connection")
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return -1, err
	}
	var cred *syscall.Ucred
	var credErr error
	if err := raw.Control(func(fd uintptr) {
		cred, credErr = syscall.GetsockoptUcred(int(fd), syscall.SOL_SOCKET, syscall.SO_PEERCRED)
	}); err != nil {
		return -1, err
	}
	if credErr != nil {
		return -1, fmt.Errorf("SO_PEERCRED: %w", credErr)
	}
	return int(cred.Uid), nil
}

// errPeerUnknown is never returned on Linux, where the kernel always
// knows a Unix socket's peer.
var errPeerUnknown = errors.New("the peer's uid cannot be read on this platform")
