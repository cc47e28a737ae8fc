package diff

import (
	"fmt"
	"io"
	"strings"
)

// writeText writes one paragraph per finding, headed by where it is shown:
//
//	openapi.yaml:42:11: breaking fingerprint-field-added: POST /orders: include adds /delivery
//	    in flight: A retry of a request sent before the change gets 422 …
//	    base: HEAD~1:openapi.yaml:40:11
//
// and a summary line. The report's problems are not repeated: idemgen
// diff prints them on stderr as it meets them.
func writeText(w io.Writer, r Report) error {
	var b strings.Builder
	for _, f := range r.Findings {
		fmt.Fprintf(&b, "%s: %s %s: %s", f.At(), f.Level, f.Rule, f.Operation)
		if f.Operation.ID != "" {
			fmt.Fprintf(&b, " (%s)", f.Operation.ID)
		}
		fmt.Fprintf(&b, ": %s\n", f.Change)
		fmt.Fprintf(&b, "    in flight: %s\n", f.InFlight)
		if f.Head.File != "" && f.Base.File != "" {
			fmt.Fprintf(&b, "    base: %s\n", f.Base)
		}
	}
	fmt.Fprintf(&b, "idemgen diff %s %s: %s\n", r.Base, r.Head, summary(r.Findings))
	_, err := io.WriteString(w, b.String())
	return err
}
