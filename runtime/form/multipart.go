package form

import (
	"bytes"
	"io"
	"maps"
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
// Upload. The tree does not depend on the order of the parts but for the
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
			values[name] = append(values[name], string(data))
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
