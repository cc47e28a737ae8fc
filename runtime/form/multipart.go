package form

import (
	"bytes"
	"encoding/json"
	"io"
	"maps"
	"mime"
	"mime/multipart"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// MaxParts bounds the parts of one multipart body, as net/http's
// ParseMultipartForm does by default.
const MaxParts = 1000

// ParseMultipart builds the tree of a multipart/form-data body (RFC 7578)
// whose parts are separated by boundary. Text parts are read as the values
// of their names, exactly as the keys of a URL-encoded form (bracketed
// names nest, a repeated name repeats its values); a part with a filename
// is a file part, held under its name, which must be a plain name, for
// Upload. A text part whose Content-Type is JSON (application/json or a
// +json type, as OpenAPI encodes an object property by default) holds its
// value as the keys below its name would: {"city":"Paris"} in the part
// ship is ship[city]=Paris, a number or boolean its text, a null nothing. The tree does not depend on the order of the parts but for the
// order of the values of one name. A body that does not parse, a part
// without a name, and more than MaxParts parts are an *Error.
func ParseMultipart(body []byte, boundary string) (*Node, error) {
	r := multipart.NewReader(bytes.NewReader(body), boundary)
	values := url.Values{}
	files := map[string][]File{}
	for i := 0; ; i++ {
		p, err := r.NextRawPart()
		if err == io.EOF { // exactly: a wrapped EOF is a body cut short
			// mime/multipart also ends at a body cut short in a part's
			// header: only one with its close delimiter is whole.
			if !bytes.Contains(body, []byte("--"+boundary+"--")) {
				return nil, &Error{Msg: "invalid multipart body: no close delimiter (--" + boundary + "--)"}
			}
			break
		}
		if err != nil {
			return nil, &Error{Msg: "invalid multipart body: " + strings.TrimPrefix(err.Error(), "multipart: ")}
		}
		if i == MaxParts {
			return nil, &Error{Msg: "more than " + strconv.Itoa(MaxParts) + " parts"}
		}
		name := p.FormName()
		if name == "" {
			return nil, &Error{Msg: "part " + strconv.Itoa(i+1) + " has no name (Content-Disposition: form-data; name=...)"}
		}
		data, err := io.ReadAll(p)
		if err != nil {
			return nil, &Error{Key: name, Msg: "invalid part: " + strings.TrimPrefix(err.Error(), "multipart: ")}
		}
		if p.FileName() == "" {
			if !jsonPart(p.Header.Get("Content-Type")) {
				values[name] = append(values[name], string(data))
				continue
			}
			if err := addJSON(values, name, data); err != nil {
				return nil, err
			}
			continue
		}
		files[name] = append(files[name], File{Name: p.FileName(), ContentType: p.Header.Get("Content-Type"), data: data})
	}
	root, err := Parse(values)
	if err != nil {
		return nil, err
	}
	for _, name := range slices.Sorted(maps.Keys(files)) {
		if strings.ContainsAny(name, "[]") {
			return nil, &Error{Key: name, Msg: "a file part's name must be a plain name"}
		}
		c := root.child(name)
		c.files = append(c.files, files[name]...)
	}
	return root, nil
}

// jsonPart reports whether a text part of media type contentType holds
// JSON.
func jsonPart(contentType string) bool {
	media, _, err := mime.ParseMediaType(contentType)
	return err == nil && (media == "application/json" || strings.HasPrefix(media, "application/") && strings.HasSuffix(media, "+json"))
}

// addJSON adds the JSON text data of the part name to values, as the
// bracketed keys a form would send it under.
func addJSON(values url.Values, name string, data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var x any
	if err := dec.Decode(&x); err != nil {
		return &Error{Key: name, Msg: "invalid JSON part: " + err.Error()}
	}
	if dec.More() {
		return &Error{Key: name, Msg: "invalid JSON part: more than one value"}
	}
	addValue(values, name, x)
	return nil
}

// addValue adds the JSON value x under key.
func addValue(values url.Values, key string, x any) {
	switch x := x.(type) {
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(x)) {
			addValue(values, key+"["+k+"]", x[k])
		}
	case []any:
		for i, e := range x {
			addValue(values, key+"["+strconv.Itoa(i)+"]", e)
		}
	case string:
		values[key] = append(values[key], x)
	case json.Number:
		values[key] = append(values[key], x.String())
	case bool:
		values[key] = append(values[key], strconv.FormatBool(x))
	}
}
