package idemops

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/idemgen/idemgen/runtime/internal/storedreq"
)

// Request is what support may see of the request an operation in progress
// after a recovery point keeps for the completer (a phased operation's):
// the request as the HTTP adapter stored it, without credentials, its
// body and headers redacted as Client.Redact redacts, and the idempotency
// key hidden unless Config.ShowKeys. An operation that commits no recovery
// point stores no request; one decided drops it with its progress.
type Request struct {
	Method     string
	Route      string
	PathParams map[string]string
	Query      url.Values
	Header     http.Header
	Body       string
}

// hiddenKey replaces a header value that carries the idempotency key.
const hiddenKey = "[idempotency key: not shown]"

// request decodes a stored request for support; key is the operation's
// idempotency key, hidden wherever a header carries it or a body field is
// exactly it, unless c shows keys. A request another adapter stored in its
// own encoding shows only its size, since its secrets cannot be told apart.
func (c *Client) request(b []byte, key string) *Request {
	if len(b) == 0 {
		return nil
	}
	s, err := storedreq.Decode(b)
	if err != nil || s.Method == "" {
		return &Request{Body: fmt.Sprintf("(%d bytes in another adapter's encoding: not shown)", len(b))}
	}
	r := &Request{Method: s.Method, Route: s.Route, PathParams: s.PathParams}
	r.Header = c.redactValues(s.Header, key)
	if s.Query != nil {
		r.Query = url.Values(c.redactValues(s.Query, key))
	}
	hide := map[string]bool{}
	if !c.cfg.ShowKeys && key != "" {
		hide[key] = true
	}
	r.Body = redactWith(s.Body, c.secrets, hide)
	return r
}

// redactValues copies a header or query: the values of a name like a
// secret's redacted, and any value carrying the key hidden unless c shows
// keys.
func (c *Client) redactValues(in map[string][]string, key string) map[string][]string {
	out := make(map[string][]string, len(in))
	for name, values := range in {
		shown := slices.Clone(values)
		for i, v := range shown {
			switch {
			case secretField(name) || c.secrets[name]:
				shown[i] = Redacted
			case !c.cfg.ShowKeys && key != "" && strings.Contains(v, key):
				shown[i] = hiddenKey
			}
		}
		out[name] = shown
	}
	return out
}
