package main

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/idemgen/idemgen/runtime/idemops/console"
)

// Without a token, ops serve refuses to start on an address others reach.
func TestOpsServeRefusesANonLoopbackAddressWithoutAToken(t *testing.T) {
	opsDB(t)
	t.Setenv(consoleActTokenEnv, "")
	t.Setenv(consoleReadTokenEnv, "")
	for _, addr := range []string{"0.0.0.0:0", ":0", "192.0.2.1:0"} {
		code, out, errOut := ops("serve", "--schema", "support", "--addr", addr)
		if code != exitUnusable || out != "" || !strings.Contains(errOut, "is not a loopback address and no token is set: set "+consoleActTokenEnv) {
			t.Errorf("--addr %s: exit %d, stdout %q, stderr %q; want exit 2 refusing to start", addr, code, out, errOut)
		}
	}
}

// The tokens decide the role: the act token acts, the read token reads,
// anything else nothing; without tokens only a loopback host reads.
func TestConsoleTokensAuthorize(t *testing.T) {
	tokens := consoleTokens{act: "act-secret", read: "read-secret"}
	for _, c := range []struct {
		tokens       consoleTokens
		host, header string
		basic        [2]string
		want         console.Principal
	}{
		{tokens, "support.example", "Bearer act-secret", [2]string{}, console.Principal{Role: console.RoleAct}},
		{tokens, "support.example", "Bearer read-secret", [2]string{}, console.Principal{Role: console.RoleRead}},
		{tokens, "support.example", "Bearer wrong", [2]string{}, console.Principal{}},
		{tokens, "support.example", "", [2]string{"alice", "act-secret"}, console.Principal{Name: "alice", Role: console.RoleAct}},
		{tokens, "127.0.0.1:8090", "", [2]string{}, console.Principal{}},
		{consoleTokens{}, "127.0.0.1:8090", "", [2]string{}, console.Principal{Role: console.RoleRead}},
		{consoleTokens{}, "rebound.example:8090", "", [2]string{}, console.Principal{}},
	} {
		r := httptest.NewRequest("GET", "/", nil)
		r.Host = c.host
		if c.header != "" {
			r.Header.Set("Authorization", c.header)
		}
		if c.basic[0] != "" {
			r.SetBasicAuth(c.basic[0], c.basic[1])
		}
		if got := c.tokens.authorize(r); got != c.want {
			t.Errorf("%+v on %s with %q %v: %+v, want %+v", c.tokens.configured(), c.host, c.header, c.basic[0], got, c.want)
		}
	}
}
