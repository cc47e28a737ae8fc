package form

import (
	"errors"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// item is written as generated DecodeForm methods are: every key that
// does not fit is kept and joined. order returns at its first failure, as
// a hand-written Decoder may; Decode and Failures serve both.
type item struct {
	SKU string
	Qty *int64
}

func (o *item) DecodeForm(n *Node) error {
	if err := Object(n); err != nil {
		return err
	}
	var errs []error
	if c := n.Get("sku"); c != nil {
		v0, err := String(c)
		if err != nil {
			errs = append(errs, err)
		}
		o.SKU = v0
	} else {
		errs = append(errs, Missing(n, "sku"))
	}
	if c := n.Get("qty"); c != nil {
		v0, err := Int64(c)
		if err != nil {
			errs = append(errs, err)
		}
		o.Qty = &v0
	}
	return errors.Join(errs...)
}

type status string

type order struct {
	Amount   int64
	Live     *bool
	Status   status
	At       *time.Time
	Items    []item
	Expand   []string
	Metadata map[string]string
	Nested   map[string][]int32
	Union    []byte
}

func (o *order) DecodeForm(n *Node) error {
	if err := Object(n); err != nil {
		return err
	}
	if c := n.Get("amount"); c != nil {
		v0, err := Int64(c)
		if err != nil {
			return err
		}
		o.Amount = v0
	} else {
		return Missing(n, "amount")
	}
	if c := n.Get("live"); c != nil {
		v0, err := Bool(c)
		if err != nil {
			return err
		}
		o.Live = &v0
	}
	if c := n.Get("status"); c != nil {
		v0, err := String(c)
		if err != nil {
			return err
		}
		o.Status = status(v0)
	} else {
		return Missing(n, "status")
	}
	if c := n.Get("at"); c != nil {
		v0, err := Time(c)
		if err != nil {
			return err
		}
		o.At = &v0
	}
	if c := n.Get("items"); c != nil {
		e0, err := c.Elems()
		if err != nil {
			return err
		}
		v0 := make([]item, len(e0))
		for i0, c := range e0 {
			if err := v0[i0].DecodeForm(c); err != nil {
				return err
			}
		}
		o.Items = v0
	}
	if c := n.Get("expand"); c != nil {
		e0, err := c.Elems()
		if err != nil {
			return err
		}
		v0 := make([]string, len(e0))
		for i0, c := range e0 {
			v1, err := String(c)
			if err != nil {
				return err
			}
			v0[i0] = v1
		}
		o.Expand = v0
	}
	if c := n.Get("metadata"); c != nil {
		k0, err := Members(c)
		if err != nil {
			return err
		}
		v0 := make(map[string]string, len(k0))
		for _, k := range k0 {
			v1, err := String(c.Get(k))
			if err != nil {
				return err
			}
			v0[k] = v1
		}
		o.Metadata = v0
	}
	if c := n.Get("nested"); c != nil {
		k0, err := Members(c)
		if err != nil {
			return err
		}
		v0 := make(map[string][]int32, len(k0))
		for _, k := range k0 {
			e1, err := c.Get(k).Elems()
			if err != nil {
				return err
			}
			v1 := make([]int32, len(e1))
			for i1, c := range e1 {
				v2, err := Int32(c)
				if err != nil {
					return err
				}
				v1[i1] = v2
			}
			v0[k] = v1
		}
		o.Nested = v0
	}
	if c := n.Get("union"); c != nil {
		v0, err := Raw(c)
		if err != nil {
			return err
		}
		o.Union = v0
	}
	return nil
}

func TestDecode(t *testing.T) {
	qty := int64(2)
	live := true
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		name string
		body string
		want order
	}{
		{
			name: "flat",
			body: "amount=42&status=paid",
			want: order{Amount: 42, Status: "paid"},
		},
		{
			name: "nested objects arrays and maps",
			body: "amount=1&status=open&live=true&at=2026-01-02T03:04:05Z" +
				"&items[1][sku]=B&items[0][sku]=A&items[0][qty]=2" +
				"&expand[]=customer&expand[]=invoice" +
				"&metadata[order]=42&metadata[team]=x" +
				"&nested[a][0]=1&nested[a][1]=2",
			want: order{
				Amount: 1, Status: "open", Live: &live, At: &at,
				Items:    []item{{SKU: "A", Qty: &qty}, {SKU: "B"}},
				Expand:   []string{"customer", "invoice"},
				Metadata: map[string]string{"order": "42", "team": "x"},
				Nested:   map[string][]int32{"a": {1, 2}},
			},
		},
		{
			name: "sparse indexes keep order",
			body: "amount=1&status=s&items[10][sku]=C&items[2][sku]=B",
			want: order{Amount: 1, Status: "s", Items: []item{{SKU: "B"}, {SKU: "C"}}},
		},
		{
			name: "repeated key is an array and empty map clears",
			body: "amount=1&status=s&expand=a&expand=b&metadata=",
			want: order{Amount: 1, Status: "s", Expand: []string{"a", "b"}, Metadata: map[string]string{}},
		},
		{
			name: "union becomes JSON with string leaves",
			body: "amount=1&status=s&union[b][0]=x&union[a]=1",
			want: order{Amount: 1, Status: "s", Union: []byte(`{"a":"1","b":["x"]}`)},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := url.ParseQuery(tt.body)
			if err != nil {
				t.Fatal(err)
			}
			var got order
			if err := Decode(v, &got); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Decode(%q) mismatch (-want +got):\n%s", tt.body, diff)
			}
		})
	}
}

func TestDecodeErrors(t *testing.T) {
	tests := []struct {
		body string
		want string
	}{
		{"status=s", "form: amount: required key is missing"},
		{"amount=x&status=s", `form: amount: invalid integer "x"`},
		{"amount=1&amount=2&status=s", "form: amount: want a single value, got 2"},
		{"amount=1&status=s&live=1", `form: live: invalid boolean "1" (want true or false)`},
		{"amount=1&status=s&items[0][qty]=1", "form: items[0][sku]: required key is missing"},
		{"amount=1&status=s&items[x][sku]=A", "form: items[x]: want an array index"},
		{"amount=1&status=s&items[01][sku]=A", "form: items[01]: want an array index"},
		{"amount=1&status=s&metadata=x", "form: metadata: want nested keys such as metadata[name]"},
		{"amount=1&status=s&at=yesterday", `form: at: invalid RFC 3339 date-time "yesterday"`},
		{"amount=1&status=s&nested[a][0]=9999999999", `form: nested[a][0]: invalid 32-bit integer "9999999999"`},
		{"amount=1&status=s&union=1&union[a]=2", "form: union: mixes a value with nested keys"},
		{"amount=1&status=s&items[0]=A", "form: items[0]: want nested keys, got a value"},
		{"amount[=1", "form: amount[: unclosed ["},
		{"amount[a]b=1", `form: amount[a]b: unexpected "b" after ]`},
		{"[a]=1", "form: [a]: key has no name"},
		{"a[][b]=1", "form: a[][b]: [] must come last in a key"},
		{"a" + strings.Repeat("[x]", 32) + "=1", "form: a" + strings.Repeat("[x]", 32) + ": nested deeper than 32 levels"},
	}
	for _, tt := range tests {
		t.Run(tt.body, func(t *testing.T) {
			v, err := url.ParseQuery(tt.body)
			if err != nil {
				t.Fatal(err)
			}
			var got order
			err = Decode(v, &got)
			var fe *Error
			if !errors.As(err, &fe) {
				t.Fatalf("Decode(%q) = %v, want a *form.Error", tt.body, err)
			}
			if err.Error() != tt.want {
				t.Errorf("Decode(%q) error = %q, want %q", tt.body, err, tt.want)
			}
		})
	}
}

func TestJSON(t *testing.T) {
	v := url.Values{"d[0]": {"1s"}, "d[1]": {"2m"}}
	root, err := Parse(v)
	if err != nil {
		t.Fatal(err)
	}
	got, err := JSON[[]string](root.Get("d"))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"1s", "2m"}, got); diff != "" {
		t.Errorf("JSON mismatch (-want +got):\n%s", diff)
	}
	if _, err := JSON[int](root.Get("d")); err == nil {
		t.Error("JSON[int] of an array: want an error")
	}
}

// A decoding error names its key as a JSON pointer, as the same body sent
// as JSON would place the value.
func TestErrorPointer(t *testing.T) {
	for key, want := range map[string]string{
		"": "", "amount": "/amount", "items[0][qty]": "/items/0/qty", "expand[]": "/expand", "a/b[c~d]": "/a~1b/c~0d", "[x": "",
	} {
		if got := (&Error{Key: key}).Pointer(); got != want {
			t.Errorf("Pointer of %q = %q, want %q", key, got, want)
		}
	}
	p, reason := Locate(&Error{Key: "items[1][sku]", Msg: "required key is missing"})
	if p != "/items/1/sku" || reason != "required key is missing" {
		t.Errorf("Locate = %q, %q", p, reason)
	}
	if p, reason := Locate(errors.New("boom")); p != "" || reason != "boom" {
		t.Errorf("Locate of another error = %q, %q", p, reason)
	}
}

// Only refuses, at its key, the first key of an object that names none of
// its members, and accepts an object with only its members or fewer.
func TestOnly(t *testing.T) {
	root, err := Parse(url.Values{"dims[w]": {"1"}, "dims[unit]": {"cm"}, "dims[depth]": {"3"}, "dims[zz]": {"4"}})
	if err != nil {
		t.Fatal(err)
	}
	dims := root.Get("dims")
	var fe *Error
	if err := Only(dims, "w", "unit"); !errors.As(err, &fe) || fe.Key != "dims[depth]" || fe.Msg != "unknown key" || fe.Pointer() != "/dims/depth" {
		t.Errorf("Only with extra keys: %v, want unknown key dims[depth] at /dims/depth first", err)
	}
	var got []string
	Failures(Only(dims, "w", "unit"), func(pointer, reason string) { got = append(got, pointer+" "+reason) })
	if want := []string{"/dims/depth unknown key", "/dims/zz unknown key"}; !slices.Equal(got, want) {
		t.Errorf("Failures(Only) = %q, want %q", got, want)
	}
	if err := Only(dims, "w", "unit", "depth", "zz", "h"); err != nil {
		t.Errorf("Only with every key named: %v", err)
	}
}

// Properties bounds an object's keys, known or not, and reports at the
// object.
func TestProperties(t *testing.T) {
	root, err := Parse(url.Values{"dims[w]": {"1"}, "dims[unit]": {"cm"}, "dims[depth]": {"3"}})
	if err != nil {
		t.Fatal(err)
	}
	dims := root.Get("dims")
	var fe *Error
	if err := Properties(dims, 4, -1); !errors.As(err, &fe) || fe.Key != "dims" || fe.Msg != "must have at least 4 members" {
		t.Errorf("Properties(4, none): %v", err)
	}
	if err := Properties(dims, 0, 2); !errors.As(err, &fe) || fe.Key != "dims" || fe.Msg != "must have at most 2 members" {
		t.Errorf("Properties(0, 2): %v", err)
	}
	if err := Properties(dims, 3, 3); err != nil {
		t.Errorf("Properties(3, 3): %v", err)
	}
}

// A generated DecodeForm reports every key that does not fit, and
// Failures names each by its pointer.
func TestFailuresOfEveryKey(t *testing.T) {
	var it item
	err := Decode(url.Values{"qty": {"many"}}, &it)
	var got []string
	Failures(err, func(pointer, reason string) { got = append(got, pointer+": "+reason) })
	if want := []string{"/sku: required key is missing", `/qty: invalid integer "many"`}; !slices.Equal(got, want) {
		t.Errorf("Failures = %q, want %q", got, want)
	}
}
