package secrets

import (
	"crypto/hmac"
	"crypto/sha1"
	"encoding/base32"
	"encoding/binary"
	"fmt"
	"strings"
	"time"
)

// TOTP is the RFC 6238 code for seed at t: HOTP (RFC 4226, HMAC-SHA1,
// dynamic truncation) over the number of whole steps since the Unix epoch.
func TOTP(seed []byte, t time.Time, step time.Duration, digits int) string {
	counter := uint64(t.Unix() / int64(step/time.Second))
	var msg [8]byte
	binary.BigEndian.PutUint64(msg[:], counter)
	m := hmac.New(sha1.New, seed)
	m.Write(msg[:])
	sum := m.Sum(nil)
	off := sum[len(sum)-1] & 0x0f
	bin := binary.BigEndian.Uint32(sum[off:off+4]) & 0x7fffffff
	mod := uint32(1)
	for i := 0; i < digits; i++ {
		mod *= 10
	}
	return fmt.Sprintf("%0*d", digits, bin%mod)
}

// decodeSeed reads a base32 seed as authenticator apps show it: any case,
// spaces allowed, padding optional.
func decodeSeed(s string) ([]byte, error) {
	s = strings.ToUpper(strings.ReplaceAll(strings.TrimSpace(s), " ", ""))
	s = strings.TrimRight(s, "=")
	b, err := base32.StdEncoding.WithPadding(base32.NoPadding).DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("not base32: %w", err)
	}
	if len(b) < 10 {
		return nil, fmt.Errorf("the seed is %d bytes; at least 10 (80 bits) are needed", len(b))
	}
	return b, nil
}
