package spec

import (
	"context"
	"errors"
	"fmt"
	"os"
	"reflect"
	"sort"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
)

// TestDecodeOpenAPIMatchesKin holds the one-parse path to kin-openapi's
// own loader: on every self-contained spec under testdata and in the
// corpus, the model decodeOpenAPI builds equals the one kin-openapi loads
// with IncludeOrigin, down to the position and name of every Origin.Key.
func TestDecodeOpenAPIMatchesKin(t *testing.T) {
	files := specFiles(t, "testdata/*.yaml", "testdata/*.json", "testdata/*/*.yaml", "../testdata/golden/*/openapi.yaml", "../testdata/golden/*/openapi.json", "../examples/*/openapi.yaml", "*")
	compared := 0
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		src, err := parseSource(file, data)
		if err != nil || src.root == nil || checkOpenAPI(src) != nil {
			continue
		}
		l := newLoader(file, LoadOptions{})
		l.sources[l.rootKey] = src
		src.key = l.rootKey
		l.patchDanglingRefs(l.rootKey, src)
		if !l.selfContained(src) {
			continue
		}
		kl := openapi3.NewLoader()
		kl.IncludeOrigin = true
		want, kinErr := kl.LoadFromFile(file)
		got, err := decodeOpenAPI(context.Background(), src, file)
		if (kinErr == nil) != (err == nil) {
			t.Errorf("%s: kin-openapi says %v, decodeOpenAPI says %v", file, kinErr, err)
			continue
		}
		if kinErr != nil {
			continue
		}
		// kin-openapi falls back to a JSON parse without origins for a text
		// its YAML parser refuses (Twilio escapes UTF-16 surrogates); the
		// rest of the model must still agree.
		c := modelComparer{seen: map[[2]uintptr]bool{}, noOrigins: want.Origin == nil}
		c.compare(reflect.ValueOf(got), reflect.ValueOf(want), "$")
		for i, d := range c.diffs {
			if i == 5 {
				t.Errorf("%s: and %d more differences", file, len(c.diffs)-i)
				break
			}
			t.Errorf("%s: %s", file, d)
		}
		compared++
	}
	if compared < 10 {
		t.Fatalf("compared %d specs, want at least 10", compared)
	}
	t.Logf("compared %d specs", compared)
}

// modelComparer compares two kin-openapi models, following each pair of
// pointers once.
type modelComparer struct {
	seen      map[[2]uintptr]bool
	noOrigins bool
	diffs     []string
}

// compare records where got differs from want. Of an Origin, only the
// Key's file, line, column and name count: the rest (field and sequence
// positions, block ends) is what kin-openapi records for tools that edit
// documents, and nothing here reads it.
func (c *modelComparer) compare(got, want reflect.Value, at string) {
	if got.IsValid() != want.IsValid() {
		c.diffs = append(c.diffs, fmt.Sprintf("at %s: one side is missing", at))
		return
	}
	if !got.IsValid() {
		return
	}
	if got.Type() == originType {
		if !c.noOrigins {
			c.compareOrigin(got, want, at)
		}
		return
	}
	switch got.Kind() {
	case reflect.Pointer, reflect.Interface:
		if got.IsNil() || want.IsNil() {
			if got.IsNil() != want.IsNil() {
				c.diffs = append(c.diffs, fmt.Sprintf("at %s: nil %v, want nil %v", at, got.IsNil(), want.IsNil()))
			}
			return
		}
		if got.Kind() == reflect.Pointer {
			pair := [2]uintptr{got.Pointer(), want.Pointer()}
			if c.seen[pair] {
				return
			}
			c.seen[pair] = true
		}
		c.compare(got.Elem(), want.Elem(), at)
	case reflect.Struct:
		for i := range got.NumField() {
			name := got.Type().Field(i).Name
			// url is set by kin-openapi's loader for the files it reads, and
			// refPath, the absolute form of a reference, from the location
			// decodeOpenAPI does not pass; only accessors idemgen does not
			// call (RefPath) read them.
			if got.Type() == reflect.TypeFor[openapi3.T]() && name == "url" || name == "refPath" {
				continue
			}
			c.compare(got.Field(i), want.Field(i), at+"."+name)
		}
	case reflect.Map:
		if got.Len() != want.Len() {
			c.diffs = append(c.diffs, fmt.Sprintf("at %s: %d entries, want %d", at, got.Len(), want.Len()))
			return
		}
		keys := got.MapKeys()
		sort.Slice(keys, func(i, j int) bool { return fmt.Sprint(keys[i]) < fmt.Sprint(keys[j]) })
		for _, k := range keys {
			c.compare(got.MapIndex(k), want.MapIndex(k), fmt.Sprintf("%s[%v]", at, k))
		}
	case reflect.Slice, reflect.Array:
		if got.Len() != want.Len() {
			c.diffs = append(c.diffs, fmt.Sprintf("at %s: %d items, want %d", at, got.Len(), want.Len()))
			return
		}
		for i := range got.Len() {
			c.compare(got.Index(i), want.Index(i), fmt.Sprintf("%s[%d]", at, i))
		}
	case reflect.Func, reflect.Chan:
	default:
		if fmt.Sprint(got) != fmt.Sprint(want) {
			c.diffs = append(c.diffs, fmt.Sprintf("at %s: %v, want %v", at, got, want))
		}
	}
}

// compareOrigin compares the Keys of two origins. It reads them through
// reflection, since an origin may sit in an unexported map.
func (c *modelComparer) compareOrigin(got, want reflect.Value, at string) {
	gk, wk := originKey(got), originKey(want)
	if gk != wk {
		c.diffs = append(c.diffs, fmt.Sprintf("at %s.Key: %s, want %s", at, gk, wk))
	}
}

// originKey renders the Key of the *Origin in v, or "none".
func originKey(v reflect.Value) string {
	if v.IsNil() {
		return "none"
	}
	k := v.Elem().FieldByName("Key")
	if k.IsNil() {
		return "none"
	}
	k = k.Elem()
	return fmt.Sprintf("%s %d:%d %q", k.FieldByName("File").String(), k.FieldByName("Line").Int(), k.FieldByName("Column").Int(), k.FieldByName("Name").String())
}

// TestDecodeOpenAPIRefusesURLRefs checks that a reference kin-openapi
// resolves to a URL sends the document back to kin-openapi's loader
// rather than failing it.
func TestDecodeOpenAPIRefusesURLRefs(t *testing.T) {
	doc := "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths:\n  /a:\n    get:\n      responses:\n        '200':\n          description: ok\n          content:\n            application/json:\n              schema: {$ref: 'https://example.invalid/s.json#/S'}\n"
	src, err := parseSource("t.yaml", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := decodeOpenAPI(context.Background(), src, "t.yaml"); !errors.Is(err, errNotSelfContained) {
		t.Fatalf("decodeOpenAPI = %v, want errNotSelfContained", err)
	}
}
