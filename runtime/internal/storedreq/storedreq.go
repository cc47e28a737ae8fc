// Package storedreq is the encoding of a request the HTTP adapter keeps for
// the completer of a phased operation, shared by the adapter that writes
// it and the support library that shows it. It links nothing but the
// standard library, so a support tool reads stored requests without the
// executor.
package storedreq

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
)

// Request is a request as the completer needs it to re-drive a phased
// operation without its client: everything the generated decoder reads,
// without the credentials (the scope is stored apart, from trusted
// authentication, and a resumed operation never authenticates again).
type Request struct {
	Method     string            `json:"method"`
	Route      string            `json:"route"`
	PathParams map[string]string `json:"path_params,omitempty"`
	Query      url.Values        `json:"query,omitempty"`
	Header     http.Header       `json:"header,omitempty"`
	Body       []byte            `json:"body,omitempty"`
}

// credentialHeaders are the request headers never stored.
var credentialHeaders = []string{"Authorization", "Proxy-Authorization", "Cookie"}

// Encode encodes r for the completer, its credentials left out; r's
// header is not changed.
func Encode(r Request) ([]byte, error) {
	r.Header = r.Header.Clone()
	for _, name := range credentialHeaders {
		r.Header.Del(name)
	}
	b, err := json.Marshal(r)
	if err != nil {
		return nil, fmt.Errorf("idem: store the request: %w", err)
	}
	return b, nil
}

// Decode decodes what Encode stored. A request stored by another adapter
// in its own encoding fails, or decodes with no method.
func Decode(b []byte) (Request, error) {
	var r Request
	if err := json.Unmarshal(b, &r); err != nil {
		return Request{}, fmt.Errorf("idem: the stored request: %w", err)
	}
	if r.Header == nil {
		r.Header = http.Header{}
	}
	return r, nil
}
