package idemops

import (
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"strings"
)

// Resolution is how a person settles an operation halted on an unknown
// outcome: the answer every later retry of it receives, stored as the
// HTTP adapter stores an answer it gave.
type Resolution struct {
	// To is OperationCompleted, answered with Answer, or OperationFailed,
	// answered with Problem; the other one stays zero.
	To      OperationState
	Answer  Answer
	Problem Problem
}

// Answer is the answer of an operation resolved as completed: what the
// operation would have answered had its outcome been known.
type Answer struct {
	Status int // a 2xx status
	// ContentType is the media type of Body, sent as Content-Type;
	// required with a body. A JSON one (application/json, or any
	// +json) requires Body to be JSON.
	ContentType string
	Body        []byte // at most MaxAnswerBody bytes; none for 204 and 205
}

// Problem is the RFC 9457 problem an operation resolved as failed answers
// with, as application/problem+json, as a business refusal does.
type Problem struct {
	Status int    // a 4xx or 5xx status
	Type   string // an absolute URI that names the problem; "" is about:blank
	Title  string // required: a short, human-readable summary
	Detail string // this occurrence's explanation; optional
}

// MaxAnswerBody is the largest body an Answer may have.
const MaxAnswerBody = 1 << 20

// The longest title and detail a Problem may have, in characters, and
// the longest Type.
const (
	maxProblemType   = 2000
	maxProblemTitle  = 200
	maxProblemDetail = 2000
)

// storedResponse is a response as the HTTP adapter stores it: the status,
// the headers kept for replays as a JSON object of name to values, the
// body.
type storedResponse struct {
	status int
	header []byte
	body   []byte
}

// response checks r and renders it as the record stores it.
func (r Resolution) response() (storedResponse, error) {
	switch r.To {
	case OperationCompleted:
		if r.Problem != (Problem{}) {
			return storedResponse{}, invalid("an operation resolved as completed answers with its Answer: leave Problem out", nil)
		}
		return r.Answer.response()
	case OperationFailed:
		if r.Answer.Status != 0 || r.Answer.ContentType != "" || r.Answer.Body != nil {
			return storedResponse{}, invalid("an operation resolved as failed answers with its Problem: leave Answer out", nil)
		}
		return r.Problem.response()
	}
	return storedResponse{}, invalid(fmt.Sprintf("resolve to %q: want completed or failed (Resume drives the operation on instead)", r.To), nil)
}

// response checks a and renders it as the record stores it.
func (a Answer) response() (storedResponse, error) {
	switch {
	case a.Status < 200 || a.Status > 299:
		return storedResponse{}, invalid(fmt.Sprintf("status %d: a completed operation answers with a 2xx status", a.Status), nil)
	case len(a.Body) > MaxAnswerBody:
		return storedResponse{}, invalid(fmt.Sprintf("the body has %d bytes: at most %d", len(a.Body), MaxAnswerBody), nil)
	case len(a.Body) > 0 && (a.Status == http.StatusNoContent || a.Status == http.StatusResetContent):
		return storedResponse{}, invalid(fmt.Sprintf("status %d answers without a body", a.Status), nil)
	case len(a.Body) > 0 && a.ContentType == "":
		return storedResponse{}, invalid("a body needs its content type", nil)
	}
	header := http.Header{}
	if a.ContentType != "" {
		media, _, err := mime.ParseMediaType(a.ContentType)
		if typ, sub, ok := strings.Cut(media, "/"); err == nil && (!ok || typ == "" || sub == "") {
			err = errors.New("it is no type/subtype")
		}
		if err != nil {
			return storedResponse{}, invalid(fmt.Sprintf("content type %q: %v; write it as a media type such as application/json", a.ContentType, err), err)
		}
		if (media == "application/json" || strings.HasSuffix(media, "+json")) && !json.Valid(a.Body) {
			return storedResponse{}, invalid(fmt.Sprintf("the body is not JSON, and its content type %s says it is", media), nil)
		}
		header.Set("Content-Type", a.ContentType)
	}
	return stored(a.Status, header, a.Body)
}

// response checks p and renders it as the record stores it: the body the
// HTTP adapter renders for a business refusal.
func (p Problem) response() (storedResponse, error) {
	if p.Status < 400 || p.Status > 599 {
		return storedResponse{}, invalid(fmt.Sprintf("status %d: a failed operation answers with a 4xx or 5xx status", p.Status), nil)
	}
	if strings.TrimSpace(p.Title) == "" {
		return storedResponse{}, invalid("a problem needs a title", nil)
	}
	for _, f := range []struct {
		name, value string
		most        int
	}{{"problem type", p.Type, maxProblemType}, {"title", p.Title, maxProblemTitle}, {"detail", p.Detail, maxProblemDetail}} {
		if err := checkLine(f.name, f.value, f.most); err != nil {
			return storedResponse{}, err
		}
	}
	typ := p.Type
	if typ == "" {
		typ = "about:blank"
	}
	if u, err := url.Parse(typ); err != nil || !u.IsAbs() {
		return storedResponse{}, invalid(fmt.Sprintf("problem type %q: want an absolute URI, such as https://example.com/problems/card-declined", p.Type), err)
	}
	body, err := json.Marshal(struct {
		Type   string `json:"type"`
		Title  string `json:"title"`
		Status int    `json:"status"`
		Detail string `json:"detail,omitempty"`
	}{typ, p.Title, p.Status, p.Detail})
	if err != nil {
		return storedResponse{}, err
	}
	return stored(p.Status, http.Header{"Content-Type": {"application/problem+json"}}, body)
}

// stored is the stored form of a response.
func stored(status int, header http.Header, body []byte) (storedResponse, error) {
	h, err := json.Marshal(header)
	if err != nil {
		return storedResponse{}, err
	}
	return storedResponse{status: status, header: h, body: body}, nil
}
