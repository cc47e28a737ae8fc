package generator

import (
	"strings"
	"testing"

	"github.com/idemgen/idemgen/spec"
)

// FuzzJudgePointers judges the verdict spec's operation under random
// fingerprint and natural-key pointers, into unions, free-form values,
// maps, arrays and escaped names. Judge must never panic, every error
// must name a rule and a position and carry a hint, and a judgement
// without an error must emit.
func FuzzJudgePointers(f *testing.F) {
	f.Add("/extra/a,/sku", "/items/*/quantity,/tags/a", "/sku", "/meta/x")
	f.Add("/items/0", "/meta/*/x,/tags/a/b", "/extra", "/delivery/*/city")
	f.Add("/", "~", "/a~2", "")
	f.Add("/tags/a~1b", "/items/*", "/meta/shop", "/tags/*/list")
	src := strings.NewReplacer("PATH", "/orders", "PARAMS", "", "MEDIA", "application/json", "SKU", "{type: string}", "BLOCK", "{}").Replace(verdictSpec)
	doc := loadSource(f, src)
	file := doc.Path
	c := doc.Operations[0].Contract
	pointers := func(line int, list string) []spec.Field[string] {
		var out []spec.Field[string]
		for _, p := range strings.Split(list, ",") {
			out = append(out, spec.Field[string]{Value: p, Pos: spec.Position{File: file, Line: line, Col: 1}, Set: true})
		}
		return out
	}
	f.Fuzz(func(t *testing.T, include, exclude, natural, unordered string) {
		c.Fingerprint = spec.Fingerprint{Include: pointers(20, include), Exclude: pointers(21, exclude), Unordered: pointers(22, unordered)}
		c.NaturalKey = pointers(23, natural)
		j := Judge(doc, spec.CheckOptions{})
		for _, d := range j.Errors() {
			if d.Rule == "" || d.Pos.Line == 0 || d.Message == "" || d.Hint == "" {
				t.Fatalf("malformed error %+v", d)
			}
		}
		if j.Plan != nil {
			if _, err := Generate(j.Plan, Options{Package: "fuzz"}); err != nil {
				t.Fatalf("the judgement has no error, but its plan does not emit: %v", err)
			}
		}
	})
}
