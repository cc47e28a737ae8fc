package fingerprint

import (
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestWriterMatchesCanonicalize is the property generated code relies on:
// for random values, the Writer's output equals Canonicalize of the same
// value marshalled by encoding/json.
func TestWriterMatchesCanonicalize(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 5000 {
		v := randValue(r, 4)
		text, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		want, err := Canonicalize(text)
		if err != nil {
			t.Fatalf("value %d: Canonicalize(%s): %v", i, text, err)
		}
		var w Writer
		writeAny(&w, v, false)
		got, err := w.Result()
		if err != nil {
			t.Fatalf("value %d: Writer: %v", i, err)
		}
		if diff := cmp.Diff(string(want), string(got)); diff != "" {
			t.Fatalf("value %d from %s: Writer differs from Canonicalize (-want +got):\n%s", i, text, diff)
		}
	}
}

// TestWriterUnorderedMatchesSpec checks that BeginUnorderedArray sorts
// exactly as a Spec's unordered pointers do, nested arrays included.
func TestWriterUnorderedMatchesSpec(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for i := range 2000 {
		v := randValue(r, 4)
		text, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		d := new(document)
		if err := d.parse(text); err != nil {
			t.Fatal(err)
		}
		markAllArrays(d, &d.root)
		want := d.appendValue(nil, &d.root)

		var w Writer
		writeAny(&w, v, true)
		got, err := w.Result()
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(string(want), string(got)); diff != "" {
			t.Fatalf("value %d from %s (-spec +writer):\n%s", i, text, diff)
		}
	}
}

func markAllArrays(d *document, n *node) {
	if n.kind == kindArray {
		n.flags |= flagUnordered
	}
	if n.kind == kindArray || n.kind == kindObject {
		for i := range d.children(n) {
			markAllArrays(d, &d.nodes[n.off+uint32(i)])
		}
	}
}

func TestWriterUnorderedKeepsDuplicates(t *testing.T) {
	var w Writer
	w.BeginUnorderedArray()
	for _, s := range []string{"b", "a", "b", "c", "a"} {
		w.String(s)
	}
	w.BeginObject()
	w.EndObject()
	w.BeginUnorderedArray()
	w.Int(2)
	w.Int(1)
	w.EndUnorderedArray()
	w.EndUnorderedArray()
	got, err := w.Result()
	if err != nil {
		t.Fatal(err)
	}
	// Sorted by canonical bytes: '"' < '[' < '{'.
	want := `["a","a","b","b","c",[1,2],{}]`
	if string(got) != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

func TestWriterIntMatchesCanonicalize(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	ints := []int64{0, 1, -1, 1 << 53, 1<<53 + 1, -(1<<53 + 1), math.MaxInt64, math.MinInt64}
	for range 2000 {
		ints = append(ints, r.Int64()>>r.IntN(64))
	}
	for _, i := range ints {
		lit := strconv.FormatInt(i, 10)
		want, err := Canonicalize([]byte(lit))
		if err != nil {
			t.Fatal(err)
		}
		var w Writer
		w.Int(i)
		got, _ := w.Result()
		if string(got) != string(want) {
			t.Errorf("Int(%d) = %s, Canonicalize(%s) = %s", i, got, lit, want)
		}
		if i >= 0 {
			var w Writer
			w.Uint(uint64(i))
			got, _ := w.Result()
			if string(got) != string(want) {
				t.Errorf("Uint(%d) = %s, want %s", i, got, want)
			}
		}
	}
	var w Writer
	w.Uint(math.MaxUint64)
	got, _ := w.Result()
	if want, _ := Canonicalize([]byte("18446744073709551615")); string(got) != string(want) {
		t.Errorf("Uint(MaxUint64) = %s, want %s", got, want)
	}
}

func TestWriterErrors(t *testing.T) {
	tests := []struct {
		name    string
		write   func(w *Writer)
		invalid bool // the error wraps ErrInvalidValue rather than reporting misuse
	}{
		{"nothing written", func(w *Writer) {}, false},
		{"unclosed object", func(w *Writer) { w.BeginObject() }, false},
		{"unclosed unordered array", func(w *Writer) { w.BeginUnorderedArray() }, false},
		{"key outside object", func(w *Writer) { w.BeginArray(); w.Key("a") }, false},
		{"value without key", func(w *Writer) { w.BeginObject(); w.Null() }, false},
		{"key without value", func(w *Writer) { w.BeginObject(); w.Key("a"); w.EndObject() }, false},
		{"two keys in a row", func(w *Writer) { w.BeginObject(); w.Key("a"); w.Key("b") }, false},
		{"keys out of order", func(w *Writer) {
			w.BeginObject()
			w.Key("b")
			w.Null()
			w.Key("a")
			w.Null()
			w.EndObject()
		}, false},
		{"keys out of UTF-16 order", func(w *Writer) {
			w.BeginObject()
			w.Key("\ufb33")
			w.Null()
			w.Key("\U0001F600")
			w.Null()
			w.EndObject()
		}, false},
		{"duplicate key", func(w *Writer) {
			w.BeginObject()
			w.Key("a")
			w.Null()
			w.Key("a")
			w.Null()
			w.EndObject()
		}, false},
		{"mismatched end", func(w *Writer) { w.BeginArray(); w.EndObject() }, false},
		{"ordered end for unordered array", func(w *Writer) { w.BeginUnorderedArray(); w.EndArray() }, false},
		{"second top-level value", func(w *Writer) { w.Null(); w.Null() }, false},
		{"invalid UTF-8 string", func(w *Writer) { w.String("\xff") }, true},
		{"invalid UTF-8 key", func(w *Writer) { w.BeginObject(); w.Key("\xc3") }, true},
		{"NaN", func(w *Writer) { w.Float(math.NaN()) }, true},
		{"infinity", func(w *Writer) { w.BeginArray(); w.Float(math.Inf(-1)); w.EndArray() }, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var w Writer
			tt.write(&w)
			got, err := w.Result()
			if err == nil {
				t.Fatalf("Result() = %s, nil; want an error", got)
			}
			if errors.Is(err, ErrInvalidValue) != tt.invalid {
				t.Errorf("error %v: errors.Is(err, ErrInvalidValue) = %v, want %v", err, !tt.invalid, tt.invalid)
			}
		})
	}
}

func TestWriterReset(t *testing.T) {
	var w Writer
	w.Float(math.NaN())
	w.Reset()
	w.BeginObject()
	w.Key("a")
	w.Bool(true)
	w.EndObject()
	got, err := w.Result()
	if err != nil || string(got) != `{"a":true}` {
		t.Errorf("after Reset: %s, %v", got, err)
	}
}
