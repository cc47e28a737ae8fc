package explain

import (
	"fmt"

	"github.com/idemgen/idemgen/spec"
)

// withStatus adds to the section of a generated operation op the status
// routes of doc that tell its attempts; a section that describes no
// guarantee (one with errors) is returned as it is.
func withStatus(s Section, doc *spec.Document, op *spec.Operation) Section {
	if len(s.Items) == 0 || op.ID == "" {
		return s
	}
	for _, route := range doc.Operations {
		if route.Status == nil || route.Status.Operation.Value != op.ID {
			continue
		}
		s.Items = append(s.Items, Item{Label: "Status route", Text: fmt.Sprintf(
			"`%s %s` (%s) tells a client what became of its attempt, by the key in the path parameter `%s`, looked up in the same trusted scope as the operation's requests: "+
				"in_progress, completed or failed with the stored status, Location and answer, requires_recovery or expired with the operation id for support (200), "+
				"or unknown (404 attempt-unknown), which is also the answer, byte for byte, to a key of another scope. It runs nothing.",
			route.Method, route.Path, route.ID, route.Status.Parameter.Value)})
	}
	return s
}
