//go:build long

package generator

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// corpusSpecs are the real-world specs the established generators fail on,
// with the Go package each is emitted into.
var corpusSpecs = []struct{ file, pkg string }{
	{"stripe-spec3.yaml", "stripe"},
	{"square-api.json", "square"},
	{"twilio-twilio_api_v2010.json", "twilio"},
	{"adyen-CheckoutService-v72.json", "adyen72"},
	{"adyen-CheckoutService-v67.json", "adyen67"},
}

// corpusDir finds shared/corpus beside a directory above the package, or
// returns "" when there is none.
func corpusDir(t testing.TB) string {
	t.Helper()
	dir, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	for {
		candidate := filepath.Join(dir, "shared", "corpus")
		if st, err := os.Stat(candidate); err == nil && st.IsDir() {
			return candidate
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// TestTypesCorpus plans and emits the request and response types of every
// mutating operation of each corpus spec, read in place, into one package
// per spec, and requires the lot to pass go vet: no name collision survives
// planning.
func TestTypesCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("plans large specs and runs go vet")
	}
	dir := corpusDir(t)
	if dir == "" {
		t.Skip("no shared/corpus directory above the package")
	}
	files := map[string][]byte{}
	for _, c := range corpusSpecs {
		start := time.Now()
		doc := loadTypesDoc(t, filepath.Join(dir, c.file))
		loaded := time.Since(start)
		ops := mutating(doc.Operations)
		plan, err := PlanTypes(doc, ops, TypeOptions{})
		if err != nil {
			t.Errorf("%s: %v", c.file, err)
			continue
		}
		types, decoders := renderTypes(t, c.pkg, plan)
		src := slices.Concat(types, decoders)
		checkNoAny(t, c.file, types)
		planned := time.Since(start) - loaded
		reversed := slices.Clone(ops)
		slices.Reverse(reversed)
		again, err := PlanTypes(doc, reversed, TypeOptions{})
		if err != nil {
			t.Fatalf("%s reversed: %v", c.file, err)
		}
		if t2, d2 := renderTypes(t, c.pkg, again); !bytes.Equal(src, slices.Concat(t2, d2)) {
			t.Errorf("%s: planning the operations in reverse order changed the output", c.file)
		}
		var structs, enums, consts, forms int
		for _, d := range plan.Decls {
			switch d.Kind {
			case DeclStruct:
				structs++
			case DeclEnum:
				enums++
				consts += len(d.Consts)
			}
			if d.Form {
				forms++
			}
		}
		t.Logf("%s: %d mutating operations, %d types (%d structs, %d enums with %d constants, %d form decoders), %d renamed on collision, %d lines; load %v, plan+emit %v",
			c.file, len(ops), len(plan.Decls), structs, enums, consts, forms, len(plan.Renames), strings.Count(string(src), "\n"), loaded.Round(time.Millisecond), planned.Round(time.Millisecond))
		for i, r := range plan.Renames {
			if i == 50 {
				t.Logf("  … and %d more", len(plan.Renames)-50)
				break
			}
			t.Logf("  %s wants %s, held by %s: got %s", r.Key, r.Want, r.HeldBy, r.Got)
		}
		files[c.pkg+"/types.go"] = types
		files[c.pkg+"/decoders.go"] = decoders
	}
	start := time.Now()
	vetModule(t, files)
	t.Logf("go vet of %d packages: %v", len(files), time.Since(start).Round(time.Millisecond))
}

// BenchmarkPlanTypes measures planning and emitting the types of every
// mutating operation of each corpus spec, loading excluded.
func BenchmarkPlanTypes(b *testing.B) {
	dir := corpusDir(b)
	if dir == "" {
		b.Skip("no shared/corpus directory above the package")
	}
	for _, c := range corpusSpecs {
		b.Run(c.pkg, func(b *testing.B) {
			doc := loadTypesDoc(b, filepath.Join(dir, c.file))
			ops := mutating(doc.Operations)
			b.ReportAllocs()
			for b.Loop() {
				plan, err := PlanTypes(doc, ops, TypeOptions{})
				if err != nil {
					b.Fatal(err)
				}
				renderTypes(b, c.pkg, plan)
			}
		})
	}
}
