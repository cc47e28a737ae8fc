package spec

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v4"
)

// jsonCases are documents whose JSON parse must equal the YAML parser's,
// node for node.
var jsonCases = []string{
	`{}`,
	`[]`,
	`{"a": [1, 2.5, "x\n\u00e9", true, null, 1e3, -0, 0, 12345678901234567890, 1E+2, -1.5e-3, "2020-01-01"]}`,
	"{\n  \"é\": {},\n  \"c\":[], \"d\": false,\r\n \"e\": \"\",\r \"f\": \"\\\"\\\\\\/\\b\\f\\r\\t\"}",
	"[\n\t1,\n\t[2, [3, {\"k\": \"v\"}]]\n]\n",
	`{"emoji": "👍 ok", "after": "x"}`,
	`{"<<": {"a": 1}, "b": "<<"}`,
	`{"yes": "no", "on": "off", "y": "n", "~": "null", "1": 1}`,
	`{"dup": 1, "dup": 2}`,
	`  {"lead": "space"}  `,
}

// TestParseJSONMatchesYAML holds the JSON fast path to the YAML parser it
// replaces: on the cases above, every JSON spec under testdata and every
// corpus JSON spec, the trees agree in kind, tag, style, value, line and
// column.
func TestParseJSONMatchesYAML(t *testing.T) {
	docs := map[string][]byte{}
	for i, c := range jsonCases {
		docs[fmt.Sprintf("case %d", i)] = []byte(c)
	}
	files := specFiles(t, "testdata/*.json", "testdata/*/*.json", "../testdata/golden/*/openapi.json", "*.json")
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		docs[f] = data
	}
	for name, data := range docs {
		got, ok := parseJSON(data)
		if !ok {
			t.Errorf("%s: parseJSON refused it", name)
			continue
		}
		want := yamlRoot(t, yamlEscapes(data))
		if want == nil {
			t.Errorf("%s: the YAML parser refused it", name)
			continue
		}
		if diff := nodeDiff(got, want, "$", surrogateLines(data)); diff != "" {
			t.Errorf("%s: %s", name, diff)
		}
	}
}

// TestParseJSONRefuses covers the inputs the fast path leaves to the YAML
// parser.
func TestParseJSONRefuses(t *testing.T) {
	for _, in := range []string{
		``, `{`, `{"a"}`, `{"a":}`, `{"a":1,}`, `[1,]`, `[1 2]`, `{a: 1}`, `{"a": 01}`, `{"a": 1.}`,
		`{"a": .5}`, `{"a": 1e}`, `{"a": -}`, `{"a": tru}`, `{"a": "\x"}`, `{"a": "\u12"}`,
		"{\"a\": \"tab\there\"}", "\xef\xbb\xbf{}", "{\"a\": \"\xff\"}", `{} {}`, `{"a": 1} # c`,
		strings.Repeat("[", maxJSONDepth+2) + strings.Repeat("]", maxJSONDepth+2),
	} {
		if _, ok := parseJSON([]byte(in)); ok {
			t.Errorf("parseJSON(%q) accepted it", in)
		}
	}
}

// TestParseJSONSurrogates checks what the fast path does differently
// from the YAML parser: an escaped surrogate pair is one character, a lone
// surrogate is U+FFFD, and columns count the text as written.
func TestParseJSONSurrogates(t *testing.T) {
	n, ok := parseJSON([]byte(`{"a": "\ud83d\udc4d", "b": "\ud83d", "c": 1}`))
	if !ok {
		t.Fatal("refused")
	}
	if got := n.Content[1].Value; got != "👍" {
		t.Errorf("pair = %q, want 👍", got)
	}
	if got := n.Content[3].Value; got != "\uFFFD" {
		t.Errorf("lone surrogate = %q, want U+FFFD", got)
	}
	if c := n.Content[4]; c.Line != 1 || c.Column != 38 {
		t.Errorf("key c at %d:%d, want 1:38", c.Line, c.Column)
	}
}

// FuzzParseJSON checks that the fast path accepts only valid JSON and
// that, where the YAML parser reads the same text, both build the same
// tree. Texts where the two languages disagree (surrogate escapes, the
// characters YAML breaks lines on) are left out of the comparison.
func FuzzParseJSON(f *testing.F) {
	for _, c := range jsonCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, ok := parseJSON(data)
		if !ok {
			return
		}
		if !json.Valid(data) {
			t.Fatalf("parseJSON accepted invalid JSON %q", data)
		}
		if bytes.Contains(data, []byte(`\u`)) || bytes.ContainsAny(data, "\u0085\u2028\u2029\ufeff") {
			return
		}
		var doc yaml.Node
		if err := yaml.Load(data, &doc); err != nil || len(doc.Content) != 1 {
			return
		}
		if diff := nodeDiff(got, doc.Content[0], "$", nil); diff != "" {
			t.Fatalf("%q: %s", data, diff)
		}
	})
}

// specFiles lists the files matching the patterns, relative to the
// package directory, and then the corpus files matching the last pattern
// when the corpus is there.
func specFiles(t *testing.T, patterns ...string) []string {
	t.Helper()
	var files []string
	globs := patterns[:len(patterns)-1]
	if dir := corpusDirOrEmpty(); dir != "" {
		globs = append(globs, filepath.Join(dir, patterns[len(patterns)-1]))
	}
	for _, pattern := range globs {
		m, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	return files
}

// yamlRoot parses data with the YAML parser, or returns nil.
func yamlRoot(t *testing.T, data []byte) *yaml.Node {
	t.Helper()
	var doc yaml.Node
	if err := yaml.Load(data, &doc); err != nil || len(doc.Content) != 1 {
		return nil
	}
	return doc.Content[0]
}

// surrogateLines are the lines of data that escape a UTF-16 surrogate,
// where the YAML parser, which reads the pair as one rewritten escape
// (yamlEscapes), counts columns differently.
func surrogateLines(data []byte) map[int]bool {
	lines := map[int]bool{}
	for i, line := range bytes.Split(data, []byte("\n")) {
		if bytes.Contains(bytes.ToLower(line), []byte(`\ud8`)) || bytes.Contains(bytes.ToLower(line), []byte(`\ud9`)) ||
			bytes.Contains(bytes.ToLower(line), []byte(`\uda`)) || bytes.Contains(bytes.ToLower(line), []byte(`\udb`)) {
			lines[i+1] = true
		}
	}
	return lines
}

// nodeDiff describes the first difference between two trees, or returns
// "". Columns on the lines in skipCols are not compared.
func nodeDiff(got, want *yaml.Node, at string, skipCols map[int]bool) string {
	if got.Kind != want.Kind || got.Tag != want.Tag || got.Style != want.Style || got.Value != want.Value ||
		got.Line != want.Line || (got.Column != want.Column && !skipCols[got.Line]) || len(got.Content) != len(want.Content) {
		return fmt.Sprintf("at %s: got kind %d tag %s style %d %q at %d:%d with %d children, want kind %d tag %s style %d %q at %d:%d with %d children",
			at, got.Kind, got.Tag, got.Style, got.Value, got.Line, got.Column, len(got.Content),
			want.Kind, want.Tag, want.Style, want.Value, want.Line, want.Column, len(want.Content))
	}
	for i := range got.Content {
		if d := nodeDiff(got.Content[i], want.Content[i], fmt.Sprintf("%s[%d]", at, i), skipCols); d != "" {
			return d
		}
	}
	return ""
}
