package httpapi

import "github.com/idemgen/idemgen/runtime/internal/storedreq"

// encodeRequest encodes req for the completer, its credentials left out.
func encodeRequest(req *Request) ([]byte, error) {
	return storedreq.Encode(storedreq.Request{Method: req.Method, Route: req.Route, PathParams: req.PathParams,
		Query: req.Query, Header: req.Header, Body: req.Body})
}

// decodeRequest decodes what encodeRequest stored.
func decodeRequest(b []byte) (*Request, error) {
	s, err := storedreq.Decode(b)
	if err != nil {
		return nil, err
	}
	return &Request{Method: s.Method, Route: s.Route, PathParams: s.PathParams, Query: s.Query, Header: s.Header, Body: s.Body}, nil
}
