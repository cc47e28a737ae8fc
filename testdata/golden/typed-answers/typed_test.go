package golden

import (
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/idemgen/idemgen/runtime/idem"
	"github.com/idemgen/idemgen/runtime/idemimpl"
)

// TestTypedRequest decodes path, query, header and cookie parameters into their
// typed fields, and refuses a missing required one or a value of the
// wrong type, naming the parameter.
func TestTypedRequest(t *testing.T) {
	raw := func() *idemimpl.Request {
		return &idemimpl.Request{
			PathParams: map[string]string{"account_id": "42"},
			Query:      url.Values{"dry_run": {"true"}, "tags": {"a,b", "c"}},
			Header:     http.Header{"X-Request-Priority": {"3"}, "Cookie": {"theme=dark; session_hint=h1"}},
			Body:       []byte(`{"amount":5}`),
		}
	}
	req, err := decodeCreateTransfer(raw())
	if err != nil {
		t.Fatal(err)
	}
	dryRun, hint := true, "h1"
	want := &CreateTransferRequest{
		AccountID: 42,
		Params:    CreateTransferParams{DryRun: &dryRun, SessionHint: &hint, Tags: []string{"a", "b", "c"}, XRequestPriority: 3},
		Body:      &CreateTransferBody{Amount: 5},
	}
	if diff := cmp.Diff(want, req); diff != "" {
		t.Errorf("typed request (-want +got):\n%s", diff)
	}
	for _, tc := range []struct {
		name   string
		change func(*idemimpl.Request)
	}{
		{"X-Request-Priority", func(r *idemimpl.Request) { r.Header.Del("X-Request-Priority") }},
		{"account_id", func(r *idemimpl.Request) { r.PathParams["account_id"] = "forty-two" }},
		{"account_id", func(r *idemimpl.Request) { r.PathParams["account_id"] = "" }},
		{"dry_run", func(r *idemimpl.Request) { r.Query.Set("dry_run", "maybe") }},
		{"session_hint", func(r *idemimpl.Request) { r.Header.Add("Cookie", "session_hint=h2") }},
	} {
		r := raw()
		tc.change(r)
		if _, err := decodeCreateTransfer(r); !errors.Is(err, idemimpl.ErrInvalidBody) || !strings.Contains(err.Error(), tc.name) {
			t.Errorf("%s: error %v, want an invalid request naming the parameter", tc.name, err)
		}
	}
	// The statement has no body: its path parameter is still checked.
	if _, err := decodeCreateStatement(&idemimpl.Request{PathParams: map[string]string{"account_id": "x"}}); !errors.Is(err, idemimpl.ErrInvalidBody) {
		t.Errorf("a statement of account x: error %v, want an invalid request", err)
	}
	if req, err := decodeCreateStatement(&idemimpl.Request{PathParams: map[string]string{"account_id": "7"}}); err != nil || req.AccountID != 7 {
		t.Errorf("a statement of account 7: %+v, %v", req, err)
	}
}

// TestTypedAnswers renders each kind of documented answer: typed headers
// (listed in Typed so that they are stored and replayed, an optional one
// only when set), a range and default with their own status, an answer
// without a body, and a body that is not JSON.
func TestTypedAnswers(t *testing.T) {
	remaining := int64(9)
	for _, tc := range []struct {
		name string
		res  CreateTransferResponse
		want idemimpl.Response
	}{
		{"201 with headers", CreateTransfer201Response{Body: Transfer{ID: "t-1", Amount: 5}, Headers: CreateTransfer201Headers{Location: "/transfers/t-1", XRateRemaining: &remaining}},
			idemimpl.Response{Status: 201, Header: http.Header{"Content-Type": {"application/json"}, "Location": {"/transfers/t-1"}, "X-Rate-Remaining": {"9"}},
				Typed: []string{"Location", "X-Rate-Remaining"}, Body: []byte(`{"id":"t-1","amount":5}`)}},
		{"201 without the optional header", CreateTransfer201Response{Body: Transfer{ID: "t-1", Amount: 5}, Headers: CreateTransfer201Headers{Location: "/transfers/t-1"}},
			idemimpl.Response{Status: 201, Header: http.Header{"Content-Type": {"application/json"}, "Location": {"/transfers/t-1"}},
				Typed: []string{"Location", "X-Rate-Remaining"}, Body: []byte(`{"id":"t-1","amount":5}`)}},
		{"202 without a body", CreateTransfer202Response{}, idemimpl.Response{Status: 202, Header: http.Header{}}},
		{"4XX", CreateTransfer4XXResponse{Status: 404, Body: Problem{}},
			idemimpl.Response{Status: 404, Header: http.Header{"Content-Type": {"application/problem+json"}}, Body: []byte(`{}`)}},
		{"default", CreateTransferDefaultResponse{Status: 503, Body: Error{Message: "down"}},
			idemimpl.Response{Status: 503, Header: http.Header{"Content-Type": {"application/json"}}, Body: []byte(`{"message":"down"}`)}},
	} {
		got, err := tc.res.responseCreateTransfer().Render()
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if diff := cmp.Diff(tc.want, *got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
	}
	if _, err := (CreateTransfer4XXResponse{Status: 500}).responseCreateTransfer().Render(); err == nil {
		t.Error("a 4XX answer with status 500 rendered")
	}
	if _, err := (CreateTransferDefaultResponse{Status: 42}).responseCreateTransfer().Render(); err == nil {
		t.Error("a default answer with status 42 rendered")
	}
	pdf, err := CreateStatement200Response{Body: []byte("%PDF-1.7")}.responseCreateStatement().Render()
	if err != nil || pdf.Header.Get("Content-Type") != "application/pdf" || string(pdf.Body) != "%PDF-1.7" {
		t.Errorf("pdf answer %+v, %v; want application/pdf with the bytes", pdf, err)
	}
}

// TestUnimplementedHandlers answers 501 with a problem naming the
// operation.
func TestUnimplementedHandlers(t *testing.T) {
	_, err := UnimplementedHandlers{}.CreateTransfer(t.Context(), nil, nil, nil)
	var rej *idem.Rejection
	if !errors.As(err, &rej) || rej.Status != http.StatusNotImplemented || !strings.Contains(rej.Detail, "createTransfer") {
		t.Errorf("error %v, want a 501 Rejection naming createTransfer", err)
	}
}
