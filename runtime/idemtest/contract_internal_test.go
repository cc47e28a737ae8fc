package idemtest

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Every route reaches its handler at the URL buildTarget makes, and the
// handler reads back the parameters as the fixture gave them: routes the
// standard mux takes as they are, and routes it rejects (a parameter inside
// a segment, a name that is no Go identifier).
func TestMuxRouteRoundTripsPathParameters(t *testing.T) {
	for _, tc := range []struct {
		route     string
		params    map[string]string
		anonymous bool // registered with anonymous wildcards
	}{
		{"/orders", nil, false},
		{"/shops/{shop}/orders/{id}", map[string]string{"shop": "a b/c", "id": "42"}, false},
		{"/Accounts/{AccountSid}/Calls/{Sid}.json", map[string]string{"AccountSid": "AC1", "Sid": "CA%2"}, true},
		{"/orders/{order-id}/refunds", map[string]string{"order-id": "o/1"}, true},
		{"/v/{a}-{b}", map[string]string{"a": "x", "b": "yz"}, true},
	} {
		t.Run(tc.route, func(t *testing.T) {
			target, err := buildTarget(tc.route, tc.params)
			if err != nil {
				t.Fatal(err)
			}
			route, err := newMuxRoute(http.MethodPost, tc.route)
			if err != nil {
				t.Fatal(err)
			}
			if got := route.param != nil; got != tc.anonymous {
				t.Errorf("pattern %q: anonymous wildcards %v, want %v", route.pattern, got, tc.anonymous)
			}
			param := route.param
			if param == nil {
				param = (*http.Request).PathValue
			}
			var got map[string]string
			mux := http.NewServeMux()
			if err := handle(mux, route.pattern, http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
				got = map[string]string{}
				for name := range tc.params {
					got[name] = param(r, name)
				}
			})); err != nil {
				t.Fatal(err)
			}
			res := Serve(mux, httptest.NewRequest(http.MethodPost, target, nil))
			if got == nil {
				t.Fatalf("POST %s (pattern %q): status %d, the handler was not reached", target, route.pattern, res.Status)
			}
			want := tc.params
			if want == nil {
				want = map[string]string{}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("path parameters of POST %s (-want +got):\n%s", target, diff)
			}
		})
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
