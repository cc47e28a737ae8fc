package jsondecode

import (
	"testing"

	"github.com/idemgen/idemgen/runtime/fingerprint"
)

// Whatever a decoder accepts, the runtime's canonical fingerprint accepts
// too, so a generated decoder never lets through a body that cannot be
// fingerprinted; and no input panics it.
func FuzzSkip(f *testing.F) {
	for _, s := range []string{`{}`, `[]`, `{"a":[1,2.5,-0,1e300,"x\u00e9"],"b":{"c":null,"d":true}}`, `{"a":1,"a":2}`,
		`"\ud800"`, `"\u0000"`, "\"\xff\"", `9007199254740993`, `{"a":` + "\t" + `1 }`, `[1,]`, `{"a"}`, "\xef\xbb\xbf{}"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		d := New(body)
		d.Skip()
		if err := d.Finish(); err != nil {
			return
		}
		if err := fingerprint.Validate(body); err != nil {
			t.Fatalf("accepted %q, which the fingerprint refuses: %v", body, err)
		}
	})
}
