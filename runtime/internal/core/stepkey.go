package core

import (
	"crypto/sha256"
	"encoding/base32"
	"strings"
)

// keyEncoding is base 32 in lower case without padding: digits and
// letters only.
var keyEncoding = base32.NewEncoding("0123456789abcdefghijklmnopqrstuv").WithPadding(base32.NoPadding)

// StepKey returns the compact key of the step named step of the operation
// with id operationID (Operation.StepKey): "idem_" and the first 130 bits
// of SHA-256 over the id and the name, in 26 base-32 digits.
func StepKey(operationID [16]byte, step string) string {
	h := sha256.New()
	h.Write(operationID[:])
	h.Write([]byte{0})
	h.Write([]byte(step))
	sum := h.Sum(nil)
	return "idem_" + strings.ToLower(keyEncoding.EncodeToString(sum[:17]))[:26]
}
