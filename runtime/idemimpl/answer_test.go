package idemimpl

import (
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/idemgen/idemgen/runtime/idem"
)

// Render gives each kind of answer its status, Content-Type, body and
// typed headers, which Typed names whether or not they are sent.
func TestAnswerRender(t *testing.T) {
	remaining, at := int64(9), time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, tc := range []struct {
		name string
		a    Answer
		want Response
	}{
		{"no body", Answer{Status: 202}, Response{Status: 202, Header: http.Header{}}},
		{"JSON with headers", Answer{Status: 201, Body: JSONBody("application/json", struct {
			ID     string `json:"id"`
			Amount int    `json:"amount"`
		}{"t-1", 5}), Headers: []AnswerHeader{
			Header("Location", "/t/t-1"), OptionalHeader("X-Rate-Remaining", &remaining), OptionalHeader[int64]("X-Absent", nil),
			ListHeader("X-Tags", []string{"a", "b"}), ListHeader[bool]("X-None", nil), Header("X-At", at),
		}}, Response{
			Status: 201,
			Header: http.Header{"Content-Type": {"application/json"}, "Location": {"/t/t-1"}, "X-Rate-Remaining": {"9"}, "X-Tags": {"a,b"}, "X-At": {"2025-01-02T03:04:05Z"}},
			Typed:  []string{"Location", "X-Rate-Remaining", "X-Absent", "X-Tags", "X-None", "X-At"},
			Body:   []byte(`{"id":"t-1","amount":5}`),
		}},
		{"range", Answer{Status: 404, Class: 4, Body: JSONBody("application/problem+json", map[string]any{})},
			Response{Status: 404, Header: http.Header{"Content-Type": {"application/problem+json"}}, Body: []byte(`{}`)}},
		{"raw", Answer{Status: 200, Body: RawBody("application/pdf", []byte("%PDF-1.7"))},
			Response{Status: 200, Header: http.Header{"Content-Type": {"application/pdf"}}, Body: []byte("%PDF-1.7")}},
		{"JSON null", Answer{Status: 200, Body: JSONBody("application/json", []string(nil))},
			Response{Status: 200, Header: http.Header{"Content-Type": {"application/json"}}, Body: []byte("null")}},
	} {
		got, err := tc.a.Render()
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if diff := cmp.Diff(tc.want, *got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
	}
}

// Render refuses a status outside the answer's range, and a body
// encoding/json cannot encode.
func TestAnswerRenderRefuses(t *testing.T) {
	for _, tc := range []struct {
		a    Answer
		want string
	}{
		{Answer{Status: 500, Class: 4}, "status 500 is not 4xx"},
		{Answer{Status: 42}, "status 42 is not a status from 100 to 599"},
		{Answer{Status: 600, Class: 6}, "status 600 is not a status from 100 to 599"},
		{Answer{Status: 0}, "status 0 is not a status from 100 to 599"},
		{Answer{Status: 200, Body: JSONBody("application/json", func() {})}, "unsupported type"},
	} {
		if _, err := tc.a.Render(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: error %v, want one saying %q", tc.a, err, tc.want)
		}
	}
}

// answer is a generated response interface in miniature: its method is
// what Respond's render calls.
type answer interface{ answer() Answer }

type created struct{ ID string }

func (c created) answer() Answer {
	return Answer{Status: 201, Body: JSONBody("application/json", map[string]string{"id": c.ID})}
}

type ranged struct{ Status int }

func (r ranged) answer() Answer { return Answer{Status: r.Status, Class: 4} }

// Respond passes the business error on, refuses a nil answer and a badly
// ranged one naming the operation, and renders the rest.
func TestRespond(t *testing.T) {
	op := &Operation{Name: "createThing"}
	render := answer.answer
	boom := errors.New("boom")
	if _, err := Respond[answer](op, nil, boom, render); err != boom {
		t.Errorf("business error: got %v, want it as it is", err)
	}
	if _, err := Respond[answer](op, nil, nil, render); err == nil || err.Error() != "createThing returned no answer" {
		t.Errorf("nil answer: got %v", err)
	}
	if _, err := Respond[answer](op, ranged{Status: 503}, nil, render); err == nil || err.Error() != "createThing: status 503 is not 4xx" {
		t.Errorf("ranged answer out of its range: got %v", err)
	}
	res, err := Respond[answer](op, created{ID: "x"}, nil, render)
	if err != nil || res.Status != 201 || string(res.Body) != `{"id":"x"}` {
		t.Errorf("created: %+v, %v", res, err)
	}
}

// NotImplemented is a 501 refusal naming the operation.
func TestNotImplemented(t *testing.T) {
	var rej *idem.Rejection
	err := NotImplemented("createThing (POST /things)")
	if !errors.As(err, &rej) || rej.Status != http.StatusNotImplemented || rej.Title != "Not Implemented" || rej.Detail != "createThing (POST /things) is not implemented." {
		t.Errorf("NotImplemented: %#v", err)
	}
}
