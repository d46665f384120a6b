package bench

import (
	"crypto/sha256"
	"encoding/hex"
)

func digest(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
