package httpapi

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/idemgen/idemgen/runtime/internal/core"
)

func TestCheckMediaType(t *testing.T) {
	one := []string{"application/json"}
	two := []string{"application/json", "application/x-www-form-urlencoded"}
	tests := []struct {
		name     string
		declared []string
		ct       string
		body     string
		ok       bool
	}{
		{"declared", one, "application/json", "{}", true},
		{"parameters and case", one, "Application/JSON; charset=utf-8", "{}", true},
		{"undeclared", one, "text/plain", "{}", false},
		{"malformed", one, "application/", "{}", false},
		{"missing with one declared", one, "", "{}", true},
		{"missing with two declared", two, "", "a=1", false},
		{"second of two", two, "application/x-www-form-urlencoded", "a=1", true},
		{"empty body", one, "text/plain", "", true},
		{"any", nil, "text/plain", "{}", true},
		{"two fields", one, "application/json\ntext/plain", "{}", false},
		{"two fields, both declared", one, "application/json\napplication/json", "{}", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := http.Header{}
			for ct := range strings.SplitSeq(tt.ct, "\n") {
				if ct != "" {
					h.Add("Content-Type", ct)
				}
			}
			err := checkMediaType(http.MethodPost, tt.declared, h, []byte(tt.body))
			if (err == nil) != tt.ok || err != nil && !errors.Is(err, ErrUnsupportedMediaType) {
				t.Fatalf("err = %v, want ok %v", err, tt.ok)
			}
			if err == nil {
				return
			}
			rec := httptest.NewRecorder()
			problemFor(err).write(rec)
			if rec.Code != http.StatusUnsupportedMediaType || rec.Header().Get("Accept-Post") != strings.Join(tt.declared, ", ") {
				t.Errorf("answer %d, Accept-Post %q", rec.Code, rec.Header().Get("Accept-Post"))
			}
		})
	}
}

func TestCheckScope(t *testing.T) {
	for _, s := range []string{strings.Repeat("t", MaxScopeBytes+1), "\xff", "a\x00b"} {
		err := checkScope(s)
		if !errors.Is(err, errScope) {
			t.Fatalf("checkScope(%.20q) = %v", s, err)
		}
		if p := problemFor(err); p.Status != http.StatusForbidden || p.Detail == "" {
			t.Errorf("problem %+v", p)
		}
	}
	if err := checkScope(strings.Repeat("t", MaxScopeBytes)); err != nil {
		t.Errorf("a scope of the bound: %v", err)
	}
}

func TestCheckNaturalKey(t *testing.T) {
	err := checkNaturalKey(strings.Repeat("k", MaxNaturalKeyBytes+1))
	if !errors.Is(err, ErrInvalidBody) || problemFor(err).Status != http.StatusBadRequest || len(problemFor(err).Violations) != 1 {
		t.Fatalf("err = %v", err)
	}
}

// A request refused because its scope runs its share is 429 scope-busy
// with Retry-After, as problem+json, and names no operation.
func TestScopeBusyIs429WithRetryAfter(t *testing.T) {
	rec := httptest.NewRecorder()
	problemFor(&core.RefusalError{Err: core.ErrScopeBusy, RetryAfter: time.Second}).write(rec)
	if rec.Code != http.StatusTooManyRequests || rec.Header().Get("Retry-After") != "1" ||
		rec.Header().Get("Content-Type") != "application/problem+json" || !strings.Contains(rec.Body.String(), `"type":"`+ProblemScopeBusy+`"`) {
		t.Errorf("scope busy: %d %v %s", rec.Code, rec.Header(), rec.Body)
	}
}
