package jsondecode

import (
	"slices"
	"testing"
)

// TestField finds each member of an object in a sorted table of names,
// byte for byte, and -1 for every other name.
func TestField(t *testing.T) {
	names := []string{"", "a", "ab", "b", "café", "z", "é"}
	if !slices.IsSorted(names) {
		t.Fatal("names are not in byte order")
	}
	body := `{"":0,"a":1,"ab":2,"b":3,"caf\u00e9":4,"z":5,"é":6,"A":7,"aa":8,"abc":9,"cafe":10,"zz":11}`
	want := []int{0, 1, 2, 3, 4, 5, 6, -1, -1, -1, -1, -1}
	d := New([]byte(body))
	var got []int
	if d.BeginObject() {
		for d.Member() {
			got = append(got, d.Field(names))
			d.Skip()
		}
	}
	if err := d.Finish(); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, want) {
		t.Errorf("Field = %v, want %v", got, want)
	}
	d = New([]byte(`{"a":1}`))
	if d.BeginObject() && d.Member() && d.Field(nil) != -1 {
		t.Error("Field of an empty table is not -1")
	}
	d.Skip()
	_ = d.Finish()
}
