package jsondecode

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// A Decoder without a JSON text reports the checks of values decoded
// elsewhere at the place Enter and EnterIndex keep, parameters first.
func TestNewValuesReportsAtThePlaceEntered(t *testing.T) {
	d := NewValues()
	if s, ok := d.Param("query", "limit", "x", 1, false); ok {
		_ = d.ParamInt(s, 1, 10)
	}
	d.EndParams()
	d.Enter("items")
	d.EnterIndex(2)
	d.Enter("a/b~c")
	d.Text("nul\x00")
	d.MinLength("nul\x00", 10) // silent: the value is unusable already
	d.Leave()
	d.Enter("sku")
	d.Text("\xff")
	d.Leave()
	d.Leave()
	d.Repeated(3)
	d.Leave()
	d.Enter("name")
	d.MaxLength("toolong", 3)
	d.Leave()
	d.ViolateAt("/x/0", "want a single value, got 2")
	err := d.Finish()
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("Finish = %v, want violations", err)
	}
	want := []Violation{
		{In: "query", Parameter: "limit", Reason: "must be an integer"},
		{Pointer: "/items/2/a~1b~0c", Reason: "must not contain NUL"},
		{Pointer: "/items/2/sku", Reason: "must be valid UTF-8"},
		{Pointer: "/items/3", Reason: "must not repeat an earlier item (uniqueItems)"},
		{Pointer: "/name", Reason: "must be at most 3 characters long"},
		{Pointer: "/x/0", Reason: "want a single value, got 2"},
	}
	if diff := cmp.Diff(want, e.Violations); diff != "" {
		t.Errorf("violations (-want +got):\n%s", diff)
	}
	if err := NewValues().Finish(); err != nil {
		t.Errorf("nothing checked: %v", err)
	}
}
