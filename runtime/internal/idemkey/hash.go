package idemkey

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"sync"
)

// Hash is how a key appears wherever it must not appear in clear (logs,
// support output): the first 16 hex digits of HMAC-SHA-256, keyed with
// secret, over the scope and the key. Without the secret a guessable key
// cannot be recovered from the hash; with the same secret, a log line and
// a support listing name a key alike.
func Hash(secret []byte, scope, key string) string {
	h := hmac.New(sha256.New, secret)
	h.Write([]byte(scope))
	h.Write([]byte{0})
	h.Write([]byte(key))
	return hex.EncodeToString(h.Sum(nil)[:8])
}

// ProcessSecret is the secret of Hash when a service configures none:
// random, drawn once per process, so hashes match within the process only.
var ProcessSecret = sync.OnceValue(func() []byte {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // never fails (crypto/rand panics rather)
	return b
})
