package stdwebhooks_test

import (
	"errors"
	"testing"
	"time"

	"github.com/idemgen/idemgen/runtime/internal/stdwebhooks"
)

// The example of the Standard Webhooks and Svix documentation.
const (
	exampleSecret    = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	exampleID        = "msg_p5jXN8AQM9LWM0D4loKWxJek"
	exampleTimestamp = "1614265330"
	exampleBody      = `{"test": 2432232314}`
	exampleSignature = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
)

var exampleAt = time.Unix(1614265330, 0)

func secret(t *testing.T, s string) stdwebhooks.Secret {
	t.Helper()
	k, err := stdwebhooks.ParseSecret(s)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func TestSignatureHeaderMatchesTheSpecificationsExample(t *testing.T) {
	got := stdwebhooks.SignatureHeader(secret(t, exampleSecret), exampleID, exampleTimestamp, []byte(exampleBody))
	if got != exampleSignature {
		t.Errorf("SignatureHeader = %s, want %s", got, exampleSignature)
	}
}

func TestVerify(t *testing.T) {
	good := secret(t, exampleSecret)
	other := secret(t, "whsec_"+"c2VjcmV0LW9mLWFub3RoZXItZW5kcG9pbnQ=")
	for _, tc := range []struct {
		name       string
		secrets    []stdwebhooks.Secret
		id, ts     string
		body       string
		signatures string
		now        time.Time
		want       error
	}{
		{"the example", []stdwebhooks.Secret{good}, exampleID, exampleTimestamp, exampleBody, exampleSignature, exampleAt, nil},
		{"rotation: the new secret first", []stdwebhooks.Secret{other, good}, exampleID, exampleTimestamp, exampleBody, exampleSignature, exampleAt, nil},
		{"several signatures, one good", []stdwebhooks.Secret{good}, exampleID, exampleTimestamp, exampleBody,
			"v1,bm9wZQ== v1a,whatever " + exampleSignature, exampleAt, nil},
		{"4m59s late", []stdwebhooks.Secret{good}, exampleID, exampleTimestamp, exampleBody, exampleSignature, exampleAt.Add(299 * time.Second), nil},
		{"another secret", []stdwebhooks.Secret{other}, exampleID, exampleTimestamp, exampleBody, exampleSignature, exampleAt, stdwebhooks.ErrSignature},
		{"another body", []stdwebhooks.Secret{good}, exampleID, exampleTimestamp, `{"test": 1}`, exampleSignature, exampleAt, stdwebhooks.ErrSignature},
		{"another id", []stdwebhooks.Secret{good}, "msg_other", exampleTimestamp, exampleBody, exampleSignature, exampleAt, stdwebhooks.ErrSignature},
		{"no signature", []stdwebhooks.Secret{good}, exampleID, exampleTimestamp, exampleBody, "", exampleAt, stdwebhooks.ErrSignature},
		{"only another version", []stdwebhooks.Secret{good}, exampleID, exampleTimestamp, exampleBody, "v1a,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=", exampleAt, stdwebhooks.ErrSignature},
		{"5m01s old", []stdwebhooks.Secret{good}, exampleID, exampleTimestamp, exampleBody, exampleSignature, exampleAt.Add(301 * time.Second), stdwebhooks.ErrTimestamp},
		{"5m01s ahead", []stdwebhooks.Secret{good}, exampleID, exampleTimestamp, exampleBody, exampleSignature, exampleAt.Add(-301 * time.Second), stdwebhooks.ErrTimestamp},
		{"no timestamp", []stdwebhooks.Secret{good}, exampleID, "", exampleBody, exampleSignature, exampleAt, stdwebhooks.ErrTimestamp},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := stdwebhooks.Verifier{Secrets: tc.secrets}
			err := v.Verify(tc.id, tc.ts, []byte(tc.body), tc.signatures, tc.now)
			if !errors.Is(err, tc.want) || (tc.want == nil) != (err == nil) {
				t.Errorf("Verify = %v, want %v", err, tc.want)
			}
		})
	}
}

func TestParseSecret(t *testing.T) {
	for _, bad := range []string{"", "whsec_", "whsec_not base64!"} {
		if _, err := stdwebhooks.ParseSecret(bad); err == nil {
			t.Errorf("ParseSecret(%q) succeeded", bad)
		}
	}
}
