package httpapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
)

// storedRequest is a request as the completer needs it to re-drive a
// phased operation without its client: everything the generated decoder
// reads, without the credentials (the scope is stored apart, from trusted
// authentication, and a resumed operation never authenticates again).
type storedRequest struct {
	Method     string            `json:"method"`
	Route      string            `json:"route"`
	PathParams map[string]string `json:"path_params,omitempty"`
	Query      url.Values        `json:"query,omitempty"`
	Header     http.Header       `json:"header,omitempty"`
	Body       []byte            `json:"body,omitempty"`
}

// credentialHeaders are the request headers never stored.
var credentialHeaders = []string{"Authorization", "Proxy-Authorization", "Cookie"}

// encodeRequest encodes req for the completer, its credentials left out.
func encodeRequest(req *Request) ([]byte, error) {
	header := req.Header.Clone()
	for _, name := range credentialHeaders {
		header.Del(name)
	}
	b, err := json.Marshal(storedRequest{Method: req.Method, Route: req.Route, PathParams: req.PathParams,
		Query: req.Query, Header: header, Body: req.Body})
	if err != nil {
		return nil, fmt.Errorf("idem: store the request: %w", err)
	}
	return b, nil
}

// decodeRequest decodes what encodeRequest stored.
func decodeRequest(b []byte) (*Request, error) {
	var s storedRequest
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("idem: the stored request: %w", err)
	}
	if s.Header == nil {
		s.Header = http.Header{}
	}
	return &Request{Method: s.Method, Route: s.Route, PathParams: s.PathParams, Query: s.Query, Header: s.Header, Body: s.Body}, nil
}
