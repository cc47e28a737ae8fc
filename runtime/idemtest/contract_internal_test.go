package idemtest

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/idemgen/idemgen/runtime/idemimpl"
)

// mountOn serves the handler the case's mount function wraps at the
// pattern it gives, and without one the contract's route as it is; a
// pattern the mux refuses is an error, not a panic.
func TestMountOn(t *testing.T) {
	reached := ""
	h := http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) { reached = r.PathValue("id") })
	c := idemimpl.Contract{Method: http.MethodPost, Route: "/orders/{id}"}
	mux, err := mountOn(nil, c, h)
	if err != nil {
		t.Fatal(err)
	}
	Serve(mux, httptest.NewRequest(http.MethodPost, "/orders/42", nil))
	if reached != "42" {
		t.Errorf("without a mount function: the handler read id %q, want 42", reached)
	}
	wrapped := false
	mount := func(h http.Handler) (string, http.Handler) {
		return "POST /orders/{p0}", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			wrapped = true
			r.SetPathValue("id", r.PathValue("p0"))
			h.ServeHTTP(w, r)
		})
	}
	if mux, err = mountOn(mount, c, h); err != nil {
		t.Fatal(err)
	}
	Serve(mux, httptest.NewRequest(http.MethodPost, "/orders/43", nil))
	if !wrapped || reached != "43" {
		t.Errorf("with a mount function: wrapped %v, id %q; want true and 43", wrapped, reached)
	}
	if _, err := mountOn(nil, idemimpl.Contract{Method: http.MethodPost, Route: "/orders/{order-id}"}, h); err == nil {
		t.Error("a pattern the mux refuses mounted without an error")
	}
}

func TestBuildTargetNamesAMissingParameter(t *testing.T) {
	for _, tc := range []struct{ route, want string }{
		{"/orders/{id}", `route "/orders/{id}": the fixture gave no value for path parameter "id"`},
		{"/orders/{id", `route "/orders/{id": unclosed {`},
	} {
		if _, err := buildTarget(tc.route, nil); err == nil || err.Error() != tc.want {
			t.Errorf("buildTarget(%q): %v, want %s", tc.route, err, tc.want)
		}
	}
}

func TestWithBodyKey(t *testing.T) {
	for _, tc := range []struct {
		name, body, contentType, ptr, want, wantErr string
	}{
		{name: "top level, replaced", body: `{"a":1.50,"idempotency_key":"old","html":"<&>"}`, contentType: "application/json",
			ptr: "/idempotency_key", want: `{"a":1.50,"html":"<&>","idempotency_key":"k1"}`},
		{name: "nested, created", body: `{"a":1}`, contentType: "application/vnd.api+json; charset=utf-8",
			ptr: "/meta/request~1key", want: `{"a":1,"meta":{"request/key":"k1"}}`},
		{name: "form body", body: `a=1`, contentType: "application/x-www-form-urlencoded",
			ptr: "/key", wantErr: `a key in the body needs a JSON body, the fixture's is "application/x-www-form-urlencoded"`},
		{name: "through a scalar", body: `{"meta":3}`, contentType: "application/json",
			ptr: "/meta/key", wantErr: `member "meta" is not an object`},
		{name: "not an object", body: `[1]`, contentType: "application/json",
			ptr: "/key", wantErr: `the body is not a JSON object`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := withBodyKey([]byte(tc.body), tc.contentType, tc.ptr, "k1")
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("error %v, want %s", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Errorf("body %s, want %s", got, tc.want)
			}
		})
	}
}
