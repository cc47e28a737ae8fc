package spec

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// corpusDir finds ../shared/corpus, the third-party specs read in place
// (never copied into the repository), by walking up from the package
// directory. It skips the test when no such directory exists.
func corpusDir(tb testing.TB) string {
	tb.Helper()
	dir := corpusDirOrEmpty()
	if dir == "" {
		tb.Skip("no shared/corpus directory above the package, or not built with -tags long")
	}
	return dir
}

// corpusFiles are the corpus specs with their operation counts (from the
// corpus README).
var corpusFiles = []struct {
	name string
	ops  int
}{
	{"adyen-CheckoutService-v67.json", 18},
	{"adyen-CheckoutService-v72.json", 28},
	{"oai-petstore-expanded.yaml", 4},
	{"oai-petstore.yaml", 3},
	{"square-api.2025-08-19.json", 316},
	{"square-api.json", 305},
	{"stripe-spec3.yaml", 468},
	{"twilio-twilio_api_v2010.json", 197},
}

// TestLoadCorpus loads every real-world spec of the corpus. Their defects
// (Square's undeclared vendor_id, the newer Square file's dangling $ref)
// are reported with positions and block only the operations they touch;
// Twilio's and Adyen v67's invalid examples and defaults are not defects.
func TestLoadCorpus(t *testing.T) {
	dir := corpusDir(t)
	const danglingMsg = `$ref "#/components/schemas/CatalogModifierToggleOverrideType" points nowhere`
	// wantDefects lists rule, line:col and message of each defect.
	wantDefects := map[string][]string{
		"square-api.json": {
			`OAS002 64364:7 PUT /v2/vendors/{vendor_id} does not declare its path parameter "vendor_id"`,
		},
		"square-api.2025-08-19.json": {
			"OAS001 9946:21 " + danglingMsg,
			"OAS001 9952:21 " + danglingMsg,
			"OAS001 9958:21 " + danglingMsg,
			"OAS001 10531:21 " + danglingMsg,
			"OAS001 10537:21 " + danglingMsg,
			`OAS002 76381:7 PUT /v2/vendors/{vendor_id} does not declare its path parameter "vendor_id"`,
		},
	}
	catalog := []string{
		"POST /v2/catalog/batch-retrieve", "POST /v2/catalog/batch-upsert", "POST /v2/catalog/images",
		"PUT /v2/catalog/images/{image_id}", "GET /v2/catalog/list", "POST /v2/catalog/object",
		"GET /v2/catalog/object/{object_id}", "POST /v2/catalog/search", "POST /v2/catalog/search-catalog-items",
		"POST /v2/online-checkout/payment-links",
	}
	wantBlocked := map[string][]string{
		"square-api.json": {"PUT /v2/vendors/{vendor_id} OAS002"},
	}
	for _, op := range catalog {
		wantBlocked["square-api.2025-08-19.json"] = append(wantBlocked["square-api.2025-08-19.json"],
			op+" OAS001 OAS001 OAS001 OAS001 OAS001")
	}
	wantBlocked["square-api.2025-08-19.json"] = append(wantBlocked["square-api.2025-08-19.json"],
		"PUT /v2/vendors/{vendor_id} OAS002")

	for _, f := range corpusFiles {
		t.Run(f.name, func(t *testing.T) {
			path := filepath.Join(dir, f.name)
			doc := loadT(t, path)
			if len(doc.Operations) != f.ops {
				t.Errorf("%d operations, want %d", len(doc.Operations), f.ops)
			}
			var defects []string
			for _, d := range doc.Defects {
				if d.Pos.File != path {
					t.Errorf("defect %s %s names file %q, want %q", d.Rule, d.Message, d.Pos.File, path)
				}
				defects = append(defects, fmt.Sprintf("%s %d:%d %s", d.Rule, d.Pos.Line, d.Pos.Col, d.Message))
			}
			if diff := cmp.Diff(wantDefects[f.name], defects); diff != "" {
				t.Errorf("defects (-want +got):\n%s", diff)
			}
			var blocked []string
			for _, op := range doc.Operations {
				if len(op.Blocked) == 0 {
					continue
				}
				s := op.Method + " " + op.Path
				for _, d := range op.Blocked {
					s += " " + d.Rule
				}
				blocked = append(blocked, s)
			}
			if diff := cmp.Diff(wantBlocked[f.name], blocked); diff != "" {
				t.Errorf("blocked operations (-want +got):\n%s", diff)
			}
		})
	}
}
