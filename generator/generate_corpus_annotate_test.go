//go:build long

package generator

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/idemgen/idemgen/runtime/defaults"
	"github.com/idemgen/idemgen/spec"
)

// generateCorpus lists the corpus specs generated whole, with the number of
// mutating operations each has (every one is annotated, then those the
// planner refuses lose their annotation: see unannotateRefused) and the
// number generated. The rest are Square's UpdateVendor, blocked by its
// undeclared path parameter, and Square's operation whose path no
// ServeMux can mount beside the others. The multipart/form-data uploads
// (Stripe's PostFiles, four of Square's) are generated.
var generateCorpus = []struct {
	file, pkg           string
	mutating, generated int
}{
	{"stripe-spec3.yaml", "stripe", 252, 252},
	{"square-api.json", "square", 189, 187},
	{"twilio-twilio_api_v2010.json", "twilio", 94, 94},
	{"adyen-CheckoutService-v72.json", "adyen72", 25, 25},
	{"adyen-CheckoutService-v67.json", "adyen67", 17, 17},
}

// isMutating reports whether an HTTP method changes state.
func isMutating(method string) bool {
	switch method {
	case "POST", "PUT", "PATCH", "DELETE":
		return true
	}
	return false
}

// corpusEffects are the effects of every third mutating operation, so the
// generated packages hold enqueuers; the rest have none.
func corpusEffects(i int) []string {
	if i%3 != 0 {
		return nil
	}
	return []string{"send_receipt", "notify_ledger"}
}

// annotateCorpus gives every mutating operation of doc the corpus contract:
// scope [tenant] and store-failures [4xx] as if the operation's block said
// so, the built-in defaults for the rest (key header Idempotency-Key,
// required, max 255; whole-body fingerprint; retention 24h; tombstone 30d;
// wait 5s; replay stored; atomic), and effects on every third operation. It
// returns the number of operations annotated. The overlay corpusOverlay
// writes annotates a spec the same way.
func annotateCorpus(doc *spec.Document) int {
	n := 0
	for _, op := range doc.Operations {
		if op.Webhook || !isMutating(op.Method) {
			continue
		}
		op.Contract = corpusContract(op.Pos, corpusEffects(n))
		n++
	}
	return n
}

// corpusContract is the merged contract spec.Load gives an operation whose
// x-idempotency block at pos sets scope, store-failures and effects.
func corpusContract(pos spec.Position, effects []string) *spec.Contract {
	c := &spec.Contract{
		Pos: pos,
		Key: spec.Key{
			In:        spec.Field[spec.KeyLocation]{Value: spec.KeyInHeader, Pos: pos},
			Name:      spec.Field[string]{Value: defaults.KeyHeader, Pos: pos},
			Required:  spec.Field[bool]{Value: true, Pos: pos},
			MaxLength: spec.Field[int]{Value: defaults.KeyMaxLength, Pos: pos},
		},
		Scope:         spec.Field[[]string]{Value: []string{"tenant"}, Pos: pos, Set: true},
		Retention:     spec.Field[time.Duration]{Value: defaults.Retention, Pos: pos},
		Tombstone:     spec.Field[time.Duration]{Value: defaults.Tombstone, Pos: pos},
		Concurrency:   spec.Field[spec.Concurrency]{Value: spec.ConcurrencyWait, Pos: pos},
		WaitTimeout:   spec.Field[time.Duration]{Value: defaults.WaitTimeout, Pos: pos},
		Replay:        spec.Field[spec.Replay]{Value: spec.ReplayStored, Pos: pos},
		StoreFailures: spec.Field[[]string]{Value: []string{"4xx"}, Pos: pos, Set: true},
		Mode:          spec.Field[spec.Mode]{Value: spec.ModeAtomic, Pos: pos},
		Lease:         spec.Field[time.Duration]{Value: defaults.Lease, Pos: pos},
	}
	for _, name := range effects {
		c.Effects = append(c.Effects, spec.Effect{
			Pos:       pos,
			Name:      spec.Field[string]{Value: name, Pos: pos, Set: true},
			OnUnknown: spec.Field[spec.OnUnknown]{Value: spec.OnUnknownRetry, Pos: pos},
		})
	}
	return c
}

// unannotateRefused removes the contract of every annotated operation the
// planner refuses in this release (a request body in no generated media
// type, a path that cannot be mounted beside the others), so that the rest
// generates, and returns how many it removed.
func unannotateRefused(doc *spec.Document) int {
	n := unannotateUnsupported(doc)
	for {
		removed := 0
		for op, diags := range Judge(doc, spec.CheckOptions{}).Unfit {
			if slices.ContainsFunc(diags, func(d spec.Diagnostic) bool { return d.Rule == RuleRoute }) {
				op.Contract = nil
				removed++
			}
		}
		if removed == 0 {
			return n
		}
		n += removed
	}
}

// corpusOverlay writes, into dir, an OpenAPI Overlay that annotates the
// mutating operations of doc as annotateCorpus and unannotateRefused do,
// and returns its path. doc's operations must not be annotated yet.
func corpusOverlay(t testing.TB, doc *spec.Document, dir string) string {
	t.Helper()
	annotateCorpus(doc)
	unannotateRefused(doc)
	kept := map[*spec.Operation]bool{}
	for _, op := range doc.Operations {
		kept[op] = op.Contract != nil
		op.Contract = nil
	}
	var b strings.Builder
	b.WriteString("overlay: 1.0.0\ninfo:\n  title: idemgen corpus annotation\n  version: 1.0.0\nactions:\n")
	n := 0
	for _, op := range doc.Operations {
		if op.Webhook || !isMutating(op.Method) {
			continue
		}
		if !kept[op] {
			n++
			continue
		}
		if strings.ContainsAny(op.Path, `'"`) {
			t.Fatalf("%s: path %q cannot be written as an overlay target", op.Pos, op.Path)
		}
		fmt.Fprintf(&b, "  - target: \"$.paths['%s'].%s\"\n", op.Path, strings.ToLower(op.Method))
		b.WriteString("    update:\n      x-idempotency:\n        scope: [tenant]\n        store-failures: [4xx]\n")
		if effects := corpusEffects(n); len(effects) > 0 {
			b.WriteString("        effects:\n")
			for _, e := range effects {
				fmt.Fprintf(&b, "          - name: %s\n", e)
			}
		}
		n++
	}
	path := filepath.Join(dir, "annotate.overlay.yaml")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
