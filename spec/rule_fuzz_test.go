package spec

import (
	"strings"
	"testing"
)

// FuzzRulePointers runs every rule on contracts whose pointers, key name
// and effect name come from the fuzzer, against a schema with allOf,
// arrays, free-form objects and escaped names. Check must never panic, and
// every finding must name a rule and a position and carry a hint.
func FuzzRulePointers(f *testing.F) {
	f.Add("/items/*/sku", "/delivery/a~1b", "/shop_id", "/event_id", "send_email")
	f.Add("/items/0", "/meta/x/y", "/items/*", "/count", "Bad-Name")
	f.Add("/", "~", "/a~2", "", "")
	f.Add("/delivery/t~0x", "/audit/trace_id", "/client_sent_at", "/items", "x")
	doc := loadRuleTestDoc(f)
	op := rtOperation(f, doc, "createOrder")
	rules := Rules()
	f.Fuzz(func(t *testing.T, include, exclude, natural, keyName, effect string) {
		c := rtGoodContract()
		c.Fingerprint = Fingerprint{
			Include:   rtPtrs(20, strings.Split(include, ",")...),
			Exclude:   rtPtrs(30, strings.Split(exclude, ",")...),
			Unordered: rtPtrs(40, include, exclude),
		}
		c.NaturalKey = rtPtrs(50, strings.Split(natural, ",")...)
		c.Key.In = rtSet(KeyInBody, 2)
		c.Key.Name = rtSet(keyName, 3)
		c.Effects = append(c.Effects, Effect{Pos: rtAt(60), Name: rtSet(effect, 60), OnUnknown: rtSet(OnUnknownHalt, 61)})
		op.Contract = c
		for _, opts := range []CheckOptions{{}, {RequireMutations: true}} {
			for _, d := range Check(doc, opts).Diagnostics {
				if !strings.HasPrefix(d.Rule, "IDEM") || d.Pos.Line == 0 || d.Message == "" || d.Hint == "" {
					t.Fatalf("malformed finding %+v", d)
				}
			}
		}
		if len(rules) != len(Rules()) {
			t.Fatal("Rules changed under Check")
		}
	})
}
