package idemtest

import (
	"encoding/json"
	"testing"

	"github.com/idemgen/idemgen/runtime/idem"
)

// Violations reads the answer to a request the generated decoders refused
// (400, application/problem+json of type request-body-invalid) and returns
// where each violation is, in the order listed: the JSON pointer of a body
// value, or in:name (query:limit) for a parameter. It fails the test when
// the answer is not such a problem or a violation gives no reason.
func Violations(tb testing.TB, resp Response) []string {
	tb.Helper()
	if resp.Status != 400 || resp.Header.Get("Content-Type") != "application/problem+json" {
		tb.Fatalf("answer %d %s, want 400 application/problem+json: %s", resp.Status, resp.Header.Get("Content-Type"), resp.Body)
	}
	var p struct {
		Type       string `json:"type"`
		Violations []struct {
			Pointer   string `json:"pointer"`
			In        string `json:"in"`
			Parameter string `json:"parameter"`
			Reason    string `json:"reason"`
		} `json:"violations"`
	}
	if err := json.Unmarshal(resp.Body, &p); err != nil {
		tb.Fatalf("problem %s: %v", resp.Body, err)
	}
	if p.Type != idem.ProblemInvalidBody {
		tb.Fatalf("problem type %s, want %s", p.Type, idem.ProblemInvalidBody)
	}
	out := []string{}
	for _, v := range p.Violations {
		if v.Reason == "" {
			tb.Errorf("violation %+v gives no reason", v)
		}
		if v.Parameter != "" {
			out = append(out, v.In+":"+v.Parameter)
			continue
		}
		out = append(out, v.Pointer)
	}
	return out
}
