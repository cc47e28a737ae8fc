package idemtest

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/idemgen/idemgen/runtime/fingerprint"
	"github.com/idemgen/idemgen/runtime/idemimpl"
)

// sample has every kind of field a generated request type has.
type sample struct {
	Name    string            `json:"name"`
	Count   int32             `json:"count"`
	Price   float64           `json:"price"`
	When    time.Time         `json:"when"`
	Note    *string           `json:"note,omitempty"`
	Tags    []string          `json:"tags,omitempty"`
	Meta    map[string]string `json:"meta,omitempty"`
	Extra   json.RawMessage   `json:"extra,omitempty"`
	Nested  *sample           `json:"nested,omitempty"`
	Ignored string            `json:"ignored"`
}

var sampleContract = idemimpl.Contract{
	Operation:   "sample",
	Method:      "POST",
	Route:       "/samples/{id}",
	PathParams:  []string{"id"},
	Fingerprint: fingerprint.Spec{Exclude: []string{"/ignored"}, Unordered: []string{"/tags"}},
}

// writeSample is a typed fingerprint written as the generator writes one.
func writeSample(w *fingerprint.Writer, v *sample, top bool) {
	w.BeginObject()
	w.Key("count")
	w.Int(int64(v.Count))
	if len(v.Extra) > 0 {
		w.Key("extra")
		w.JSON(v.Extra)
	}
	if !top {
		w.Key("ignored")
		w.String(v.Ignored)
	}
	if len(v.Meta) > 0 {
		w.Key("meta")
		keys := make([]string, 0, len(v.Meta))
		for k := range v.Meta {
			keys = append(keys, k)
		}
		w.BeginObject()
		for _, k := range fingerprint.SortKeys(keys) {
			w.Key(k)
			w.String(v.Meta[k])
		}
		w.EndObject()
	}
	w.Key("name")
	w.String(v.Name)
	if v.Nested != nil {
		w.Key("nested")
		writeSample(w, v.Nested, false)
	}
	if v.Note != nil {
		w.Key("note")
		w.String(*v.Note)
	}
	w.Key("price")
	w.Float(v.Price)
	if len(v.Tags) > 0 {
		w.Key("tags")
		if top {
			w.BeginUnorderedArray()
		} else {
			w.BeginArray()
		}
		for _, t := range v.Tags {
			w.String(t)
		}
		if top {
			w.EndUnorderedArray()
		} else {
			w.EndArray()
		}
	}
	w.Key("when")
	w.String(v.When.Format(time.RFC3339Nano))
	w.EndObject()
}

func sumSample(v *sample, params map[string]string) (fingerprint.Sum, error) {
	return fingerprint.SumWith("POST", "/samples/{id}", params, func(w *fingerprint.Writer) { writeSample(w, v, true) })
}

func TestCheckFingerprintAcceptsAMatchingTypedFingerprint(t *testing.T) {
	if err := CheckFingerprint(sampleContract, sumSample); err != nil {
		t.Fatal(err)
	}
}

func TestCheckFingerprintCatchesADifferentOne(t *testing.T) {
	ignoresCount := func(v *sample, params map[string]string) (fingerprint.Sum, error) {
		c := *v
		c.Count = 0
		return sumSample(&c, params)
	}
	err := CheckFingerprint(sampleContract, ignoresCount)
	if err == nil || !strings.Contains(err.Error(), "typed fingerprint") {
		t.Fatalf("CheckFingerprint of a fingerprint that ignores a significant field: err = %v, want a mismatch", err)
	}
}
