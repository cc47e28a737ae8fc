package generator

import (
	"go/token"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/idemgen/idemgen/spec"
)

// initialisms are the words GoName writes in capitals. The table is fixed
// on purpose: growing it renames generated symbols in every user's code.
var initialisms = map[string]string{
	"acl":   "ACL",
	"api":   "API",
	"db":    "DB",
	"html":  "HTML",
	"http":  "HTTP",
	"https": "HTTPS",
	"id":    "ID",
	"ip":    "IP",
	"json":  "JSON",
	"sql":   "SQL",
	"tls":   "TLS",
	"ttl":   "TTL",
	"uri":   "URI",
	"url":   "URL",
	"uuid":  "UUID",
	"xml":   "XML",
}

// GoName turns an operationId, schema name, property name or enum value into
// an exported Go identifier. The source is split into words at every
// character that is neither a letter nor a digit (snake_case, kebab-case,
// dots, spaces, punctuation) and at lower-to-upper case changes (camelCase,
// HTTPServer); each word is capitalised, and a word found in the fixed
// initialism table is written as the initialism, also before a plural s
// (ids → IDs). Letters and digits outside ASCII are kept, since Go accepts
// them in identifiers.
//
// The result always starts with an upper-case letter, so it is exported and
// never a Go keyword or predeclared name: a source that would start with a
// digit or a letter without case (1099, 名前) gets an X in front, and one
// without any letter or digit becomes Empty. GoName is not injective
// (start_time, startTime and start-time all give StartTime): a Namespace
// decides what happens when two sources meet.
func GoName(s string) string {
	var b strings.Builder
	for _, w := range words(s) {
		b.WriteString(goWord(w))
	}
	name := b.String()
	if name == "" {
		return "Empty"
	}
	if r, _ := utf8.DecodeRuneInString(name); !unicode.IsUpper(r) {
		name = "X" + name
	}
	return name
}

// goWord writes one word of a Go name.
func goWord(w string) string {
	lower := strings.ToLower(w)
	if up, ok := initialisms[lower]; ok {
		return up
	}
	if strings.HasSuffix(lower, "s") {
		if up, ok := initialisms[lower[:len(lower)-1]]; ok {
			return up + "s"
		}
	}
	r, n := utf8.DecodeRuneInString(w)
	return string(unicode.ToUpper(r)) + w[n:]
}

// SQLName turns a name into a snake_case PostgreSQL identifier that needs
// no quoting: the words GoName would find, lower-cased and joined with
// underscores, keeping only ASCII letters and digits, with an underscore in
// front when it would start with a digit. A name longer than PostgreSQL's
// 63-byte identifier limit (which PostgreSQL would silently truncate, so two
// long names could meet) is an error at pos.
func SQLName(s string, pos spec.Position) (string, error) {
	var parts []string
	for _, w := range words(s) {
		var b strings.Builder
		for _, r := range strings.ToLower(w) {
			if r < utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
				b.WriteRune(r)
			}
		}
		if b.Len() > 0 {
			parts = append(parts, b.String())
		}
	}
	name := strings.Join(parts, "_")
	switch {
	case name == "":
		return "", &spec.Error{Pos: pos, Msg: "name " + strconv.Quote(s) + " has no letters or digits to make an SQL identifier of"}
	case name[0] >= '0' && name[0] <= '9':
		name = "_" + name
	}
	if len(name) > maxSQLIdentifier {
		return "", &spec.Error{Pos: pos, Msg: "SQL identifier " + name + " is longer than PostgreSQL's 63 bytes"}
	}
	return name, nil
}

// maxSQLIdentifier is PostgreSQL's NAMEDATALEN minus one.
const maxSQLIdentifier = 63

// words splits s at every rune that is neither a letter nor a digit and at
// case changes: a lower-case letter or digit followed by an upper-case
// letter (startTime), and the last capital of a run followed by a
// lower-case letter (HTTPServer → HTTP Server), except a plural s that
// ends the word (userIDs → user IDs).
func words(s string) []string {
	var out []string
	rs := []rune(s)
	start := -1
	flush := func(end int) {
		if start >= 0 && end > start {
			out = append(out, string(rs[start:end]))
		}
		start = -1
	}
	for i, r := range rs {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			flush(i)
			continue
		}
		if start < 0 {
			start = i
			continue
		}
		prev := rs[i-1]
		switch {
		case unicode.IsUpper(r) && (unicode.IsLower(prev) || unicode.IsDigit(prev)):
			flush(i)
			start = i
		case unicode.IsLower(r) && unicode.IsUpper(prev) && i-1 > start && !pluralS(rs, i):
			flush(i - 1)
			start = i - 1
		}
	}
	flush(len(rs))
	return out
}

// pluralS reports whether rs[i] is an s that ends a word after a run of
// capitals (IDs, URLs), which stays with the run.
func pluralS(rs []rune, i int) bool {
	return rs[i] == 's' && (i+1 == len(rs) || !unicode.IsLower(rs[i+1]))
}

// UnexportedName turns a name into an unexported Go identifier for locals
// and parameters in generated code: GoName's words with the first one in
// lower case (an initialism entirely: ID → id, HTTPServer → httpServer),
// and an underscore after it when the result is a Go keyword or a
// predeclared identifier (type → type_, string → string_).
func UnexportedName(s string) string {
	ws := words(s)
	if len(ws) == 0 {
		return "empty"
	}
	var b strings.Builder
	b.WriteString(strings.ToLower(goWord(ws[0])))
	for _, w := range ws[1:] {
		b.WriteString(goWord(w))
	}
	name := b.String()
	if r, _ := utf8.DecodeRuneInString(name); !unicode.IsLetter(r) {
		name = "x" + name
	}
	if token.IsKeyword(name) || predeclared[name] {
		name += "_"
	}
	return name
}

// predeclared holds Go's predeclared identifiers, which generated locals
// must not shadow.
var predeclared = map[string]bool{
	"any": true, "append": true, "bool": true, "byte": true, "cap": true,
	"clear": true, "close": true, "comparable": true, "complex": true,
	"complex128": true, "complex64": true, "copy": true, "delete": true,
	"error": true, "false": true, "float32": true, "float64": true,
	"imag": true, "int": true, "int16": true, "int32": true, "int64": true,
	"int8": true, "iota": true, "len": true, "make": true, "max": true,
	"min": true, "new": true, "nil": true, "panic": true, "print": true,
	"println": true, "real": true, "recover": true, "rune": true,
	"string": true, "true": true, "uint": true, "uint16": true,
	"uint32": true, "uint64": true, "uint8": true, "uintptr": true,
}
