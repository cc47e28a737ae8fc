package api

import (
	"net/http"
	"testing"
)

// Parameters are checked on every operation, not only those with a JSON
// body: on a bodiless operation and on one with a form body each
// violation of a path, query or header parameter is listed in the same
// 400 problem, nothing is stored, and the corrected retry runs.
func TestParamsOfEveryOperation(t *testing.T) {
	s := newServer(t)
	archive := func(target, priority string) call {
		c := call{target: target, header: http.Header{}}
		if priority != "" {
			c.header.Set("X-Priority", priority)
		}
		return c
	}
	const id = "3e4666bf-d5e5-4aa7-b8ce-cefe41c7568a"
	s.run(t, []check{
		{"bodiless: path format, query enum, header maximum", archive("/widgets/not-a-uuid/archive?reason=bored", "9"),
			[]string{"path:widget-id", "query:reason", "header:X-Priority"}, archive("/widgets/"+id+"/archive?reason=sold", "5")},
		{"bodiless: required query, header not an integer", archive("/widgets/"+id+"/archive", "high"),
			[]string{"query:reason", "header:X-Priority"}, archive("/widgets/"+id+"/archive?reason=broken", "")},
	}, http.StatusNoContent)
	gadget := func(target string) call {
		return call{target: target, body: "name=cog&quantity=2", contentType: "application/x-www-form-urlencoded"}
	}
	s.run(t, []check{
		{"form body: query boolean", gadget("/gadgets?notify=maybe"), []string{"query:notify"}, gadget("/gadgets?notify=true")},
	}, http.StatusCreated)
}
