package spec

import (
	"bytes"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"go.yaml.in/yaml/v4"

	"github.com/idemgen/idemgen/runtime/jsonpointer"
)

// source is one file read during a load: its name as reported in
// positions, its bytes as handed to kin-openapi when it reads the file
// itself, and its YAML node tree. kin-openapi's origin tracking stops at
// x- extension values, so contract positions come from this tree, and a
// self-contained document is decoded into kin-openapi's model from it.
// JSON is YAML, so the YAML parser could read both; JSON goes through a
// parser of its own (parseJSON) that builds the same tree many times
// faster.
type source struct {
	// key is the slash-separated cleaned path the loader caches it under,
	// or the URL of a remote document.
	key string
	// base is the URL of a remote document, which its relative references
	// are resolved against; nil for a file.
	base *url.URL
	file string
	data []byte
	// root is the top-level value of the document; nil for an empty file.
	root *yaml.Node
}

// parseSource parses data as JSON or YAML. A syntax error comes back as a
// positioned *Error, in the YAML parser's words, and so does a document
// that nests too deeply or whose aliases expand too far (checkBounds).
func parseSource(file string, data []byte) (*source, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, &Error{Pos: Position{File: file, Line: 1, Col: 1}, Msg: "empty file"}
	}
	src := &source{file: file, data: data}
	if looksLikeJSON(data) {
		src.root, _ = parseJSON(data)
	}
	if src.root == nil {
		var doc yaml.Node
		if err := yaml.Load(yamlEscapes(data), &doc); err != nil {
			return nil, yamlError(file, err)
		}
		if doc.Kind == yaml.DocumentNode && len(doc.Content) == 1 {
			src.root = doc.Content[0]
		}
	}
	if err := checkBounds(src); err != nil {
		return nil, err
	}
	return src, nil
}

// looksLikeJSON reports whether data starts, past white space, with an
// object or an array, as a JSON document does; parseSource tries the JSON
// parser on it first.
func looksLikeJSON(data []byte) bool {
	data = bytes.TrimLeft(data, " \t\r\n")
	return len(data) > 0 && (data[0] == '{' || data[0] == '[')
}

// yamlError turns a YAML parser error into a positioned *Error, keeping the
// parser's message but dropping its own position prefix.
func yamlError(file string, err error) *Error {
	var le *yaml.LoadError
	if errors.As(err, &le) {
		msg := "invalid YAML or JSON: " + le.Message
		if le.ContextMsg != "" && le.ContextMark.Line > 0 {
			msg += fmt.Sprintf(" (%s at %d:%d)", le.ContextMsg, le.ContextMark.Line, le.ContextMark.Column)
		}
		pos := Position{File: file, Line: le.Mark.Line, Col: le.Mark.Column}
		if pos.Line == 0 {
			// An error without a mark, such as a stream of comments only,
			// is about the file as a whole: point at its start.
			pos.Line, pos.Col = 1, 1
		}
		return &Error{Pos: pos, Msg: msg}
	}
	var les *yaml.LoadErrors
	if errors.As(err, &les) && len(les.Errors) > 0 {
		return yamlError(file, les.Errors[0])
	}
	// Errors without a mark, such as a stream of comments only, are about
	// the file as a whole: point at its start.
	return &Error{Pos: Position{File: file, Line: 1, Col: 1}, Msg: "invalid YAML or JSON: " + err.Error()}
}

// pos is the position of node n in this source.
func (s *source) pos(n *yaml.Node) Position {
	return nodePos(s.file, n)
}

// nodePos is the position of node n in file.
func nodePos(file string, n *yaml.Node) Position {
	if n == nil {
		return Position{File: file}
	}
	return Position{File: file, Line: n.Line, Col: n.Column}
}

// deref follows an alias to the node it names.
func deref(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && i < 32; i++ {
		n = n.Alias
	}
	return n
}

// mappingEntry returns the key and value nodes of key in mapping m, or nils
// when m is not a mapping or has no such key. The first occurrence wins.
func mappingEntry(m *yaml.Node, key string) (k, v *yaml.Node) {
	m = deref(m)
	if m == nil || m.Kind != yaml.MappingNode {
		return nil, nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i], deref(m.Content[i+1])
		}
	}
	return nil, nil
}

// lookupPointer resolves a JSON pointer (RFC 6901), such as
// /components/schemas/Order, inside the tree rooted at n.
func lookupPointer(n *yaml.Node, pointer string) (*yaml.Node, bool) {
	n = deref(n)
	if pointer == "" {
		return n, n != nil
	}
	if !strings.HasPrefix(pointer, "/") {
		return nil, false
	}
	for _, tok := range jsonpointer.Split(pointer) {
		switch {
		case n == nil:
			return nil, false
		case n.Kind == yaml.MappingNode:
			_, n = mappingEntry(n, tok)
		case n.Kind == yaml.SequenceNode:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(n.Content) {
				return nil, false
			}
			n = deref(n.Content[i])
		default:
			return nil, false
		}
	}
	return n, n != nil
}

// kindName describes a node's type in the words of JSON, which every
// OpenAPI author knows, for "want X, got Y" messages.
func kindName(n *yaml.Node) string {
	n = deref(n)
	if n == nil {
		return "nothing"
	}
	switch n.Kind {
	case yaml.MappingNode:
		return "an object"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!str":
			return fmt.Sprintf("the string %q", n.Value)
		case "!!int", "!!float":
			return "the number " + n.Value
		case "!!bool":
			return n.Value
		case "!!null":
			return "null"
		default:
			return fmt.Sprintf("%s %q", n.ShortTag(), n.Value)
		}
	default:
		return "an unsupported YAML node"
	}
}

// byteOffset returns the byte offset in data of 1-based line and column,
// where the column counts characters as the YAML parser does. It returns
// -1 when the place is outside data.
func byteOffset(data []byte, line, col int) int {
	off := 0
	for l := 1; l < line; l++ {
		i := bytes.IndexByte(data[off:], '\n')
		if i < 0 {
			return -1
		}
		off += i + 1
	}
	for c := 1; c < col; c++ {
		if off >= len(data) || data[off] == '\n' {
			return -1
		}
		_, size := utf8.DecodeRune(data[off:])
		off += size
	}
	return off
}

// smallMapping is the size up to which duplicateKeys compares keys pairwise
// instead of building a map.
const smallMapping = 16

// duplicateKey is the error for key k, which repeats the key prev.
func duplicateKey(src *source, k, prev *yaml.Node) *Error {
	return &Error{Pos: src.pos(k), Msg: fmt.Sprintf("duplicate key %q (first at line %d)", k.Value, prev.Line)}
}

// duplicateKeys reports every mapping key in src that repeats an earlier
// key of the same mapping. YAML forbids them and kin-openapi refuses the
// document without a column, so they are caught here with both places.
func duplicateKeys(src *source) ErrorList {
	var errs ErrorList
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		if n.Kind == yaml.MappingNode && len(n.Content) > 2*smallMapping {
			first := make(map[string]*yaml.Node, len(n.Content)/2)
			for i := 0; i+1 < len(n.Content); i += 2 {
				k := n.Content[i]
				if k.Kind != yaml.ScalarNode {
					continue
				}
				if prev, ok := first[k.Value]; ok {
					errs = append(errs, duplicateKey(src, k, prev))
					continue
				}
				first[k.Value] = k
			}
		} else if n.Kind == yaml.MappingNode {
			for i := 2; i < len(n.Content); i += 2 {
				k := n.Content[i]
				if k.Kind != yaml.ScalarNode {
					continue
				}
				for j := 0; j < i; j += 2 {
					if prev := n.Content[j]; prev.Kind == yaml.ScalarNode && prev.Value == k.Value {
						errs = append(errs, duplicateKey(src, k, prev))
						break
					}
				}
			}
		}
		for _, c := range n.Content {
			walk(c)
		}
	}
	if src.root != nil {
		walk(src.root)
	}
	return errs
}

// yamlEscapes rewrites the JSON escapes of UTF-16 surrogates, which JSON
// allows and YAML does not, so a JSON file with "\\ud83d\\udc4d" in a string
// parses: a pair becomes the equivalent 8-digit \\U escape, a lone surrogate
// \\ufffd. It returns data itself when there is nothing to rewrite. A
// rewritten pair is two bytes shorter, so columns after it on its line
// shift by two in the node tree; line numbers do not change.
func yamlEscapes(data []byte) []byte {
	if !bytes.Contains(data, []byte(`\u`)) {
		return data
	}
	var out []byte
	last := 0
	for i := 0; i+6 <= len(data); i++ {
		if data[i] != '\\' {
			continue
		}
		if data[i+1] != 'u' {
			i++ // skip the escaped character, which may be a backslash
			continue
		}
		hi, ok := hex4(data[i+2 : i+6])
		if !ok || hi < 0xD800 || hi > 0xDFFF {
			i += 5
			continue
		}
		if out == nil {
			out = make([]byte, 0, len(data))
		}
		out = append(out, data[last:i]...)
		if lo, ok := lowSurrogate(data[i+6:]); ok && hi <= 0xDBFF {
			r := utf16.DecodeRune(rune(hi), rune(lo))
			out = fmt.Appendf(out, `\U%08X`, r)
			last = i + 12
		} else {
			out = append(out, `\uFFFD`...)
			last = i + 6
		}
		i = last - 1
	}
	if out == nil {
		return data
	}
	return append(out, data[last:]...)
}

// lowSurrogate reads a \\uDC00-\\uDFFF escape at the start of b.
func lowSurrogate(b []byte) (uint16, bool) {
	if len(b) < 6 || b[0] != '\\' || b[1] != 'u' {
		return 0, false
	}
	v, ok := hex4(b[2:6])
	return v, ok && v >= 0xDC00 && v <= 0xDFFF
}

// hex4 parses four hexadecimal digits.
func hex4(b []byte) (uint16, bool) {
	v, err := strconv.ParseUint(string(b), 16, 16)
	return uint16(v), err == nil
}
