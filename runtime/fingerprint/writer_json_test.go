package fingerprint

import (
	"errors"
	"testing"
)

func TestWriterJSONCanonicalisesNestedText(t *testing.T) {
	w := &Writer{}
	w.BeginObject()
	w.Key("a")
	w.JSON([]byte(` { "z" : 1e2, "b" : [ "\u0041", null ] } `))
	w.Key("b")
	w.BeginUnorderedArray()
	w.JSON([]byte(`{"y":2,"x":1}`))
	w.JSON([]byte(`[3, 1]`))
	w.EndUnorderedArray()
	w.EndObject()
	got, err := w.Result()
	if err != nil {
		t.Fatal(err)
	}
	src := `{"a":{"z":100,"b":["A",null]},"b":[{"x":1,"y":2},[3,1]]}`
	want, err := Canonicalize([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	spec := Spec{Unordered: []string{"/b"}}
	wantSum, err := spec.Sum(Request{Method: "POST", Route: "/x", Body: []byte(src)})
	if err != nil {
		t.Fatal(err)
	}
	gotSum, err := SumCanonical("POST", "/x", nil, got)
	if err != nil {
		t.Fatal(err)
	}
	if gotSum != wantSum {
		t.Errorf("Writer.JSON body %s sums to %s; the generic path (canonical %s) gives %s", got, gotSum, want, wantSum)
	}
}

func TestWriterJSONRejectsInvalidText(t *testing.T) {
	w := &Writer{}
	w.BeginArray()
	w.JSON([]byte(`{"a":1,"a":2}`))
	w.EndArray()
	if _, err := w.Result(); !errors.Is(err, ErrInvalidJSON) {
		t.Fatalf("Result after JSON with a duplicate name: err = %v, want ErrInvalidJSON", err)
	}
}

func TestWriterMarshaled(t *testing.T) {
	w := &Writer{}
	w.Marshaled([]byte(`{"b":1,"a":2}`), nil)
	got, err := w.Result()
	if err != nil || string(got) != `{"a":2,"b":1}` {
		t.Fatalf("Marshaled = %s, %v; want the canonical object", got, err)
	}
	w = &Writer{}
	w.Marshaled(nil, errors.New("boom"))
	if _, err := w.Result(); !errors.Is(err, ErrInvalidValue) {
		t.Fatalf("Marshaled with an error: Result err = %v, want ErrInvalidValue", err)
	}
}
