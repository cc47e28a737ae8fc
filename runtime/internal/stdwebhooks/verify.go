package stdwebhooks

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// DefaultTolerance is how far a webhook's timestamp may be from the
// receiver's clock, either way, when Verifier.Tolerance is 0: the
// specification's 5 minutes.
const DefaultTolerance = 5 * time.Minute

// The headers of a Standard Webhooks request.
const (
	HeaderID        = "webhook-id"
	HeaderTimestamp = "webhook-timestamp"
	HeaderSignature = "webhook-signature"
)

// secretPrefix starts a secret in its usual form.
const secretPrefix = "whsec_"

// ErrSignature is wrapped by Verify's error when no signature matches:
// the request is not from a sender holding one of the secrets.
var ErrSignature = errors.New("webhook signature invalid")

// ErrTimestamp is wrapped by Verify's error when the timestamp is missing,
// malformed or outside the tolerance.
var ErrTimestamp = errors.New("webhook timestamp invalid")

// Secret is a signing key.
type Secret []byte

// ParseSecret reads a secret in the form "whsec_<base64>" (the prefix is
// optional, as the libraries accept it).
func ParseSecret(s string) (Secret, error) {
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(s, secretPrefix))
	if err != nil || len(key) == 0 {
		return nil, errors.New("webhook secret: want whsec_ followed by base64")
	}
	return key, nil
}

// Verifier checks signatures against every secret it holds: during a
// rotation, the old and the new one.
type Verifier struct {
	Secrets   []Secret
	Tolerance time.Duration // 0 means DefaultTolerance
}

// Verify checks that signatures (the webhook-signature header) hold a
// v1 signature of id, timestamp and body under one of v's secrets, and
// that timestamp (Unix seconds) is within the tolerance of now. It
// returns an error wrapping ErrSignature or ErrTimestamp otherwise.
func (v *Verifier) Verify(id, timestamp string, body []byte, signatures string, now time.Time) error {
	sec, err := strconv.ParseInt(timestamp, 10, 64)
	if err != nil {
		return fmt.Errorf("%w: %s is not a Unix time in seconds", ErrTimestamp, HeaderTimestamp)
	}
	tolerance := v.Tolerance
	if tolerance == 0 {
		tolerance = DefaultTolerance
	}
	if at := time.Unix(sec, 0); at.Before(now.Add(-tolerance)) || at.After(now.Add(tolerance)) {
		return fmt.Errorf("%w: %s is more than %v from the receiver's clock", ErrTimestamp, HeaderTimestamp, tolerance)
	}
	var sent [][]byte
	for entry := range strings.FieldsSeq(signatures) {
		version, sig, ok := strings.Cut(entry, ",")
		if !ok || version != "v1" {
			continue
		}
		if raw, err := base64.StdEncoding.DecodeString(sig); err == nil {
			sent = append(sent, raw)
		}
	}
	for _, secret := range v.Secrets {
		want := Sign(secret, id, timestamp, body)
		for _, s := range sent {
			if hmac.Equal(s, want) {
				return nil
			}
		}
	}
	return fmt.Errorf("%w: no v1 signature matches", ErrSignature)
}

// Sign returns the v1 signature of id, timestamp and body under secret,
// unencoded.
func Sign(secret Secret, id, timestamp string, body []byte) []byte {
	mac := hmac.New(sha256.New, secret)
	mac.Write([]byte(id))
	mac.Write([]byte{'.'})
	mac.Write([]byte(timestamp))
	mac.Write([]byte{'.'})
	mac.Write(body)
	return mac.Sum(nil)
}

// SignatureHeader returns the webhook-signature header a sender holding
// secret sends for id, timestamp and body: "v1,<base64>".
func SignatureHeader(secret Secret, id, timestamp string, body []byte) string {
	return "v1," + base64.StdEncoding.EncodeToString(Sign(secret, id, timestamp, body))
}
