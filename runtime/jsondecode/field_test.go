package jsondecode

import (
	"cmp"
	"slices"
	"testing"
)

// TestField finds each member of an object in a table of names sorted
// shortest first, then in byte order, byte for byte, and -1 for every
// other name.
func TestField(t *testing.T) {
	names := []string{"", "a", "b", "z", "ab", "é", "café"}
	if !slices.IsSortedFunc(names, func(a, b string) int { return cmp.Or(cmp.Compare(len(a), len(b)), cmp.Compare(a, b)) }) {
		t.Fatal("names are not in the order Field searches")
	}
	body := `{"":0,"a":1,"b":2,"z":3,"ab":4,"\u00e9":5,"café":6,"A":7,"aa":8,"abc":9,"cafe":10,"zz":11}`
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
