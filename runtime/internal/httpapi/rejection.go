package httpapi

import (
	"encoding/json"
	"errors"
	"net/http"
)

// Rejection is a business refusal in run-time form: the RFC 9457 problem
// it answers with. Services return runtime/idem's Rejection; the executor
// sees it through Config.AsRejection.
type Rejection struct {
	Status int
	Type   string // "" means about:blank
	Title  string
	Detail string
}

// response renders the rejection as a problem+json response.
func (r Rejection) response() (*Response, error) {
	if r.Status < 400 || r.Status > 599 {
		return nil, errors.New("idem: a Rejection needs a 4xx or 5xx status")
	}
	typ := r.Type
	if typ == "" {
		typ = "about:blank"
	}
	body, err := json.Marshal(Problem{Type: typ, Title: r.Title, Status: r.Status, Detail: r.Detail})
	if err != nil {
		return nil, err
	}
	return &Response{Status: r.Status, Header: http.Header{"Content-Type": {"application/problem+json"}}, Body: body}, nil
}
