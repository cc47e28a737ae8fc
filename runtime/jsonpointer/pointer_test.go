package jsonpointer

import (
	"errors"
	"fmt"
	"slices"
	"testing"
)

func TestSplitJoin(t *testing.T) {
	for _, tc := range []struct {
		pointer string
		tokens  []string
	}{
		{"", nil},
		{"/", []string{""}},
		{"/a", []string{"a"}},
		{"/a/b", []string{"a", "b"}},
		{"/a~1b/c~0d", []string{"a/b", "c~d"}},
		{"/~01", []string{"~1"}},
		{"//x", []string{"", "x"}},
	} {
		got, err := Parse(tc.pointer)
		if err != nil {
			t.Errorf("Parse(%q): %v", tc.pointer, err)
			continue
		}
		if !slices.Equal(got, tc.tokens) {
			t.Errorf("Parse(%q) = %q, want %q", tc.pointer, got, tc.tokens)
		}
		if j := Join(got...); j != tc.pointer {
			t.Errorf("Join(%q) = %q, want %q", got, j, tc.pointer)
		}
	}
}

func TestCheckRefuses(t *testing.T) {
	for _, p := range []string{"a", "/a~", "/a~2", "/\xff"} {
		if err := Check(p); !errors.Is(err, ErrSyntax) {
			t.Errorf("Check(%q) = %v, want ErrSyntax", p, err)
		}
	}
}

func ExampleSplit() {
	fmt.Printf("%q\n", Split("/items/0/sku~1code"))
	// Output: ["items" "0" "sku/code"]
}
