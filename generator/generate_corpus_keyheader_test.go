//go:build long

package generator

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"go.yaml.in/yaml/v4"

	"github.com/idemgen/idemgen/runtime/defaults"
)

// keyHeaderParameter is the components/parameters entry documentKeyHeader
// adds for the Idempotency-Key header.
const keyHeaderParameter = "IdemgenIdempotencyKey"

// documentKeyHeader writes into dir a copy of the spec at src in which
// every mutating operation documents the required Idempotency-Key header
// parameter, and returns its path. idemgen generate refuses a contract
// whose key header the operation does not document (IDEM009), and most
// corpus specs leave the header to their SDKs; an overlay may change only
// contract blocks, so the header goes into a copy. Operations that already
// document the header, inline or through a local $ref, are left alone.
// Path parameters a template names but no operation declares are declared
// (declarePathParams). The
// copy is JSON or YAML as src is, so tools parse it as they parse the
// original; it stays outside the repository.
func documentKeyHeader(t testing.TB, src, dir string) string {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if strings.EqualFold(filepath.Ext(src), ".json") {
		data = unescapeJSON(t, data)
	}
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		t.Fatalf("%s: %v", src, err)
	}
	if len(root.Content) == 0 || root.Content[0].Kind != yaml.MappingNode {
		t.Fatalf("%s: not a mapping at the top level", src)
	}
	doc := root.Content[0]
	components := mappingChild(doc, "components", yaml.MappingNode)
	params := mappingChild(components, "parameters", yaml.MappingNode)
	if mappingValue(params, keyHeaderParameter) != nil {
		t.Fatalf("%s already has components/parameters/%s", src, keyHeaderParameter)
	}
	params.Content = append(params.Content, scalar(keyHeaderParameter), mapping(
		scalar("name"), scalar(defaults.KeyHeader),
		scalar("in"), scalar("header"),
		scalar("required"), &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: "true"},
		scalar("schema"), mapping(scalar("type"), scalar("string"), scalar("maxLength"), &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: "255"}),
	))
	paths := mappingValue(doc, "paths")
	if paths == nil || paths.Kind != yaml.MappingNode {
		t.Fatalf("%s: no paths", src)
	}
	for i := 1; i < len(paths.Content); i += 2 {
		item := paths.Content[i]
		if item.Kind != yaml.MappingNode {
			continue
		}
		for j := 0; j+1 < len(item.Content); j += 2 {
			op := item.Content[j+1]
			if !isMutating(strings.ToUpper(item.Content[j].Value)) || op.Kind != yaml.MappingNode {
				continue
			}
			declarePathParams(params, paths.Content[i-1].Value, mappingValue(item, "parameters"), mappingChild(op, "parameters", yaml.SequenceNode))
			if documentsKeyHeader(params, mappingValue(item, "parameters")) || documentsKeyHeader(params, mappingValue(op, "parameters")) {
				continue
			}
			list := mappingChild(op, "parameters", yaml.SequenceNode)
			list.Content = append(list.Content, mapping(scalar("$ref"), scalar("#/components/parameters/"+keyHeaderParameter)))
		}
	}
	out := marshalLike(t, src, &root)
	path := filepath.Join(dir, strings.TrimSuffix(filepath.Base(src), filepath.Ext(src))+".keyheader"+filepath.Ext(src))
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// marshalLike encodes root as JSON when src is a JSON file, else as YAML.
func marshalLike(t testing.TB, src string, root *yaml.Node) []byte {
	t.Helper()
	if !strings.EqualFold(filepath.Ext(src), ".json") {
		out, err := yaml.Marshal(root)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	var v any
	if err := root.Decode(&v); err != nil {
		t.Fatal(err)
	}
	out, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// unescapeJSON re-encodes a JSON document so its strings hold UTF-8 rather
// than \u escapes of UTF-16 surrogate pairs, which JSON allows and YAML
// does not (Twilio's spec has "\ud83d\udc4d"). Numbers keep their text.
func unescapeJSON(t testing.TB, data []byte) []byte {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		t.Fatal(err)
	}
	out, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// declarePathParams adds to list a string declaration of every parameter
// of the path template that neither the path item's parameters nor list
// declare (Square's UpdateVendor leaves out vendor_id): a document defect
// would keep idemgen generate from generating the copy at all.
func declarePathParams(components *yaml.Node, template string, lists ...*yaml.Node) {
	declared := map[string]bool{}
	for _, l := range lists {
		if l == nil || l.Kind != yaml.SequenceNode {
			continue
		}
		for _, p := range l.Content {
			if ref := mappingValue(p, "$ref"); ref != nil {
				p = mappingValue(components, strings.TrimPrefix(ref.Value, "#/components/parameters/"))
			}
			if in, name := mappingValue(p, "in"), mappingValue(p, "name"); in != nil && name != nil && in.Value == "path" {
				declared[name.Value] = true
			}
		}
	}
	list := lists[len(lists)-1]
	for _, m := range regexp.MustCompile(`\{([^{}]+)\}`).FindAllStringSubmatch(template, -1) {
		if !declared[m[1]] {
			declared[m[1]] = true
			list.Content = append(list.Content, mapping(
				scalar("name"), scalar(m[1]), scalar("in"), scalar("path"),
				scalar("required"), &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: "true"},
				scalar("schema"), mapping(scalar("type"), scalar("string"))))
		}
	}
}

// documentsKeyHeader reports whether a parameters list holds the key
// header, inline or as a $ref into components/parameters.
func documentsKeyHeader(components, list *yaml.Node) bool {
	if list == nil || list.Kind != yaml.SequenceNode {
		return false
	}
	for _, p := range list.Content {
		if ref := mappingValue(p, "$ref"); ref != nil {
			p = mappingValue(components, strings.TrimPrefix(ref.Value, "#/components/parameters/"))
		}
		in, name := mappingValue(p, "in"), mappingValue(p, "name")
		if in != nil && name != nil && in.Value == "header" && strings.EqualFold(name.Value, defaults.KeyHeader) {
			return true
		}
	}
	return false
}

// mappingValue returns the value of key in mapping n, or nil.
func mappingValue(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

// mappingChild returns the value of key in mapping n, adding an empty node
// of kind when there is none.
func mappingChild(n *yaml.Node, key string, kind yaml.Kind) *yaml.Node {
	if v := mappingValue(n, key); v != nil {
		return v
	}
	v := &yaml.Node{Kind: kind}
	n.Content = append(n.Content, scalar(key), v)
	return v
}

// scalar is a string node.
func scalar(s string) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s}
}

// mapping builds a mapping node from alternating key and value nodes.
func mapping(entries ...*yaml.Node) *yaml.Node {
	return &yaml.Node{Kind: yaml.MappingNode, Content: entries}
}
