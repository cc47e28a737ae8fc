package idemtest

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"mime/multipart"
	"net/textproto"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/idemgen/idemgen/runtime/form"
)

var fileType = reflect.TypeFor[form.File]()

// EncodeMultipart renders body, a pointer to a generated request struct
// of a multipart/form-data operation, as such a body: each form.File field
// a file part named by its JSON name, every other field text parts with
// bracketed names (items[0][sku]=A), as Stripe's clients send them. A nil
// field, and a null anywhere, is left out: a form has no null. It returns
// the body and its Content-Type with the boundary; the contract tests of
// multipart operations send what it returns.
func EncodeMultipart(body any) ([]byte, string, error) {
	v := reflect.Indirect(reflect.ValueOf(body))
	if v.Kind() != reflect.Struct {
		return nil, "", fmt.Errorf("idemtest: a multipart body is a struct, not %s", v.Kind())
	}
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	for i := range v.NumField() {
		sf := v.Type().Field(i)
		name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
		fv := v.Field(i)
		if !sf.IsExported() || name == "" || name == "-" {
			continue
		}
		if fv.Kind() == reflect.Pointer && fv.Type().Elem() == fileType {
			if fv.IsNil() {
				continue
			}
			fv = fv.Elem()
		}
		if fv.Type() == fileType {
			if err := writeFile(w, name, fv.Interface().(form.File)); err != nil {
				return nil, "", err
			}
			continue
		}
		text, err := json.Marshal(fv.Interface())
		if err != nil {
			return nil, "", fmt.Errorf("idemtest: field %s: %w", name, err)
		}
		dec := json.NewDecoder(bytes.NewReader(text))
		dec.UseNumber()
		var x any
		if err := dec.Decode(&x); err != nil {
			return nil, "", fmt.Errorf("idemtest: field %s: %w", name, err)
		}
		if err := writeText(w, name, x); err != nil {
			return nil, "", err
		}
	}
	if err := w.Close(); err != nil {
		return nil, "", err
	}
	return buf.Bytes(), w.FormDataContentType(), nil
}

// writeFile writes f as the file part key, with its file name ("file" when
// it has none: a part without one is a text part) and media type.
func writeFile(w *multipart.Writer, key string, f form.File) error {
	filename := cmp.Or(f.Name, "file")
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", `form-data; name="`+quoteEscaper.Replace(key)+`"; filename="`+quoteEscaper.Replace(filename)+`"`)
	if f.ContentType != "" {
		h.Set("Content-Type", f.ContentType)
	}
	part, err := w.CreatePart(h)
	if err != nil {
		return err
	}
	_, err = io.Copy(part, f.Reader())
	return err
}

// quoteEscaper escapes a quoted parameter of Content-Disposition as
// mime/multipart does.
var quoteEscaper = strings.NewReplacer("\\", "\\\\", `"`, "\\\"")

// writeText writes the JSON value x as the text parts of key and the keys
// below it.
func writeText(w *multipart.Writer, key string, x any) error {
	switch x := x.(type) {
	case nil:
		return nil
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(x)) {
			if err := writeText(w, key+"["+k+"]", x[k]); err != nil {
				return err
			}
		}
		return nil
	case []any:
		for i, e := range x {
			if err := writeText(w, key+"["+strconv.Itoa(i)+"]", e); err != nil {
				return err
			}
		}
		return nil
	case string:
		return w.WriteField(key, x)
	case json.Number:
		return w.WriteField(key, x.String())
	case bool:
		return w.WriteField(key, strconv.FormatBool(x))
	}
	return errors.New("idemtest: " + key + ": a value JSON cannot hold")
}
