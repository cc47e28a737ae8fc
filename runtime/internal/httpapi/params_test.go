package httpapi

import (
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// A scalar parameter sent twice is refused wherever it is, naming the
// parameter, rather than decided by its first value; a list parameter
// takes every value.
func TestParamRefusesARepeatedScalar(t *testing.T) {
	r := &Request{
		Query:  url.Values{"limit": {"1", "2"}, "ids": {"1,2", "3"}},
		Header: http.Header{"X-Page": {"1", "2"}, "Cookie": {"session=a; session=b"}},
	}
	for _, p := range []struct{ in, name string }{{InQuery, "limit"}, {InHeader, "X-Page"}, {InCookie, "session"}} {
		var v string
		err := Param(r, p.in, p.name, false, &v)
		if !errors.Is(err, ErrInvalidBody) || !strings.Contains(err.Error(), p.in+" parameter "+p.name+" is sent 2 times") {
			t.Errorf("%s %s sent twice: %v, want an ErrInvalidBody naming it", p.in, p.name, err)
		}
		var opt *string
		if err := OptionalParam(r, p.in, p.name, &opt); !errors.Is(err, ErrInvalidBody) || opt != nil {
			t.Errorf("optional %s %s sent twice: %v, %v; want an ErrInvalidBody and nothing set", p.in, p.name, err, opt)
		}
	}
	var ids []int64
	if err := ParamList(r, InQuery, "ids", true, &ids); err != nil || len(ids) != 3 {
		t.Errorf("list sent as 1,2 and 3: %v, %v; want [1 2 3]", ids, err)
	}
	var limit int64
	if err := Param(&Request{Query: url.Values{"limit": {"7"}}}, InQuery, "limit", true, &limit); err != nil || limit != 7 {
		t.Errorf("limit sent once: %d, %v", limit, err)
	}
}
