package form

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"mime/multipart"
	"net/textproto"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// upload is a hand-written multipart request type, written as generated
// DecodeForm methods are.
type upload struct {
	File  File
	Title *string
	Tags  []string
}

func (o *upload) DecodeForm(n *Node) error {
	if err := Object(n); err != nil {
		return err
	}
	var errs []error
	if c := n.Get("file"); c != nil {
		v0, err := Upload(c, 16)
		if err != nil {
			errs = append(errs, err)
		}
		o.File = v0
	} else {
		errs = append(errs, Missing(n, "file"))
	}
	if c := n.Get("title"); c != nil {
		v0, err := String(c)
		if err != nil {
			errs = append(errs, err)
		}
		o.Title = &v0
	}
	if c := n.Get("tags"); c != nil {
		e0, err := c.Elems()
		if err != nil {
			errs = append(errs, err)
		}
		for _, c := range e0 {
			v1, err := String(c)
			if err != nil {
				errs = append(errs, err)
			}
			o.Tags = append(o.Tags, v1)
		}
	}
	return errors.Join(errs...)
}

// mpPart is one part a test writes: a file part when filename is set.
type mpPart struct{ name, filename, contentType, body string }

// encode writes parts with mime/multipart under boundary.
func encode(t *testing.T, boundary string, parts ...mpPart) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	if err := w.SetBoundary(boundary); err != nil {
		t.Fatal(err)
	}
	for _, p := range parts {
		h := textproto.MIMEHeader{}
		cd := `form-data; name="` + p.name + `"`
		if p.filename != "" {
			cd += `; filename="` + p.filename + `"`
		}
		h.Set("Content-Disposition", cd)
		if p.contentType != "" {
			h.Set("Content-Type", p.contentType)
		}
		pw, err := w.CreatePart(h)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.WriteString(pw, p.body); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// decodeUpload parses body and decodes it into an upload.
func decodeUpload(body []byte, boundary string) (*upload, error) {
	root, err := ParseMultipart(body, boundary)
	if err != nil {
		return nil, err
	}
	u := new(upload)
	return u, u.DecodeForm(root)
}

// TestParseMultipart decodes file and text parts, in any order and under
// any boundary, into the same value; the file keeps its name, media type
// and bytes, binary ones included.
func TestParseMultipart(t *testing.T) {
	content := "\x00\xffbin\r\n--b\r\n"
	file := mpPart{name: "file", filename: "scans/a.pdf", contentType: "application/pdf", body: content}
	a, err := decodeUpload(encode(t, "b1", mpPart{name: "title", body: "T"}, file, mpPart{name: "tags[0]", body: "x"}, mpPart{name: "tags[1]", body: "y"}), "b1")
	if err != nil {
		t.Fatal(err)
	}
	b, err := decodeUpload(encode(t, "other-boundary", mpPart{name: "tags[1]", body: "y"}, file, mpPart{name: "tags[0]", body: "x"}, mpPart{name: "title", body: "T"}), "other-boundary")
	if err != nil {
		t.Fatal(err)
	}
	// A JSON part holds what the bracketed keys below its name would.
	c, err := decodeUpload(encode(t, "json", mpPart{name: "tags", contentType: "application/json; charset=utf-8", body: `["x", "y"]`}, file, mpPart{name: "title", body: "T"}), "json")
	if err != nil {
		t.Fatal(err)
	}
	opts := cmp.Comparer(func(x, y File) bool {
		return x.Name == y.Name && x.ContentType == y.ContentType && x.Digest() == y.Digest()
	})
	if diff := cmp.Diff(a, b, opts); diff != "" {
		t.Errorf("the same upload framed two ways (-first +second):\n%s", diff)
	}
	if diff := cmp.Diff(a, c, opts); diff != "" {
		t.Errorf("the same upload with a JSON part (-bracketed +JSON):\n%s", diff)
	}
	if a.File.Name != "a.pdf" {
		t.Errorf("file name %q, want it without directories", a.File.Name)
	}
	got, err := io.ReadAll(a.File.Reader())
	if err != nil || string(got) != content || a.File.Size() != int64(len(content)) || a.File.ContentType != "application/pdf" {
		t.Errorf("file: %q (%d bytes, %s), %v; want %q", got, a.File.Size(), a.File.ContentType, err, content)
	}
	sum := sha256.Sum256([]byte(content))
	digest := "sha256:" + hex.EncodeToString(sum[:])
	if a.File.Digest() != digest {
		t.Errorf("digest %s, want %s", a.File.Digest(), digest)
	}
	if j, err := json.Marshal(a.File); err != nil || string(j) != strconv.Quote(digest) {
		t.Errorf("JSON %s, %v; want the digest as a string", j, err)
	}
	if *a.Title != "T" || !cmp.Equal(a.Tags, []string{"x", "y"}) {
		t.Errorf("text parts: title %q, tags %v", *a.Title, a.Tags)
	}
}

// TestParseMultipartRefuses names what does not fit, by the key a client
// wrote, for every malformed or hostile body.
func TestParseMultipartRefuses(t *testing.T) {
	file := mpPart{name: "file", filename: "a.txt", body: "hello"}
	valid := encode(t, "XyZ", file)
	many := make([]mpPart, MaxParts+1)
	for i := range many {
		many[i] = mpPart{name: "tags[]", body: "t"}
	}
	for _, tc := range []struct {
		name     string
		body     []byte
		boundary string
		want     string
		large    bool
	}{
		{"another boundary", valid, "other", "form: invalid multipart body: NextPart: EOF", false},
		{"truncated", valid[:len(valid)-10], "XyZ", "form: file: invalid part", false},
		{"truncated in a part's header", valid[:20], "XyZ", "form: invalid multipart body", false},
		{"empty", nil, "XyZ", "form: invalid multipart body: NextPart: EOF", false},
		{"no closing delimiter", bytes.TrimSuffix(valid, []byte("--XyZ--\r\n")), "XyZ", "form: file: invalid part", false},
		{"part without a name", []byte("--XyZ\r\nContent-Disposition: form-data\r\n\r\nx\r\n--XyZ--\r\n"), "XyZ", "form: part 1 has no name", false},
		{"too many parts", encode(t, "XyZ", append(many, file)...), "XyZ", "form: more than 1000 parts", false},
		{"file under a nested name", encode(t, "XyZ", file, mpPart{name: "tags[0]", filename: "t", body: "x"}), "XyZ", "form: tags[0]: a file part's name must be a plain name", false},
		{"missing file", encode(t, "XyZ", mpPart{name: "title", body: "T"}), "XyZ", "form: file: required key is missing", false},
		{"file as text", encode(t, "XyZ", mpPart{name: "file", body: "hello"}), "XyZ", "form: file: want a file part (one with a filename), got a text value", false},
		{"two files", encode(t, "XyZ", file, file), "XyZ", "form: file: want one file part, got 2 parts of this name", false},
		{"file and text of one name", encode(t, "XyZ", file, mpPart{name: "file", body: "x"}), "XyZ", "form: file: want one file part, got 2 parts of this name", false},
		{"text as file", encode(t, "XyZ", file, mpPart{name: "title", filename: "t.txt", body: "T"}), "XyZ", "form: title: want a text value, got a file part", false},
		{"array as file", encode(t, "XyZ", file, mpPart{name: "tags", filename: "t.txt", body: "T"}), "XyZ", "form: tags: want text values, got a file part", false},
		{"invalid JSON part", encode(t, "XyZ", file, mpPart{name: "tags", contentType: "application/json", body: `["x",`}), "XyZ", "form: tags: invalid JSON part", false},
		{"two JSON values", encode(t, "XyZ", file, mpPart{name: "tags", contentType: "application/merge-patch+json", body: `["x"] ["y"]`}), "XyZ", "form: tags: invalid JSON part: more than one value", false},
		{"JSON object for an array", encode(t, "XyZ", file, mpPart{name: "tags", contentType: "application/json", body: `{"a": 1, "b": null, "c": true}`}), "XyZ", "form: tags[a]: want an array index", false},
		{"two titles", encode(t, "XyZ", file, mpPart{name: "title", body: "a"}, mpPart{name: "title", body: "b"}), "XyZ", "form: title: want a single value, got 2", false},
		{"file over its limit", encode(t, "XyZ", mpPart{name: "file", filename: "big", body: strings.Repeat("x", 17)}), "XyZ", "form: file: file of 17 bytes, at most 16 allowed", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := decodeUpload(tc.body, tc.boundary)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
			var large *TooLargeError
			if errors.As(err, &large) != tc.large {
				t.Errorf("error %v: a TooLargeError is %v, want %v", err, !tc.large, tc.large)
			}
		})
	}
}

// TestNewFile builds the file a client sends, with a reader that starts
// over on each call.
func TestNewFile(t *testing.T) {
	f := NewFile("a.txt", "text/plain", []byte("abc"))
	for range 2 {
		b, err := io.ReadAll(f.Reader())
		if err != nil || string(b) != "abc" {
			t.Fatalf("Reader: %q, %v", b, err)
		}
	}
	if f.Size() != 3 || f.Digest() != "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" {
		t.Errorf("size %d, digest %s", f.Size(), f.Digest())
	}
}

// FuzzParseMultipart feeds arbitrary bodies and boundaries to the parser
// and a decoder: it never panics, and every failure is an *Error or a
// *TooLargeError, which name what does not fit.
func FuzzParseMultipart(f *testing.F) {
	f.Add([]byte("--b\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a\"\r\n\r\nx\r\n--b--\r\n"), "b")
	f.Add([]byte("--b\r\nContent-Disposition: form-data; name=\"tags[0]\"\r\n\r\nx\r\n--b\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\nT\r\n--b--"), "b")
	f.Add([]byte("--b\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a\"\r\n\r\nxx"), "b")
	f.Add([]byte("preamble\r\n--b--\r\n"), "b")
	f.Fuzz(func(t *testing.T, body []byte, boundary string) {
		if boundary == "" || len(boundary) > 70 {
			return
		}
		_, err := decodeUpload(body, boundary)
		if err == nil {
			return
		}
		var e *Error
		var large *TooLargeError
		if !errors.As(err, &e) && !errors.As(err, &large) {
			t.Fatalf("error %T %v, want an *Error or a *TooLargeError", err, err)
		}
	})
}
