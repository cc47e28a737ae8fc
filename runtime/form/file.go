package form

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strconv"
)

// File is one file part of a multipart/form-data body: the file name and
// media type the client gave it and its bytes, already read within the
// operation's body limit. Generated request types hold one for each
// top-level property of type string and format binary.
type File struct {
	// Name is the file name of the part's Content-Disposition, its last
	// path element as mime/multipart's FileName gives it; a file name is
	// what makes a part a file part.
	Name string
	// ContentType is the part's Content-Type as sent; empty when it has
	// none (RFC 7578 then means text/plain).
	ContentType string
	data        []byte
}

// NewFile returns the file name with media type contentType holding data,
// which it does not copy: for tests and clients building a request.
func NewFile(name, contentType string, data []byte) File {
	return File{Name: name, ContentType: contentType, data: data}
}

// Size is the number of bytes of the file.
func (f File) Size() int64 { return int64(len(f.data)) }

// Reader returns a reader over the file's bytes; each call starts at the
// first byte.
func (f File) Reader() *bytes.Reader { return bytes.NewReader(f.data) }

// Digest is "sha256:" and the hexadecimal SHA-256 of the file's bytes: what
// a request's fingerprint holds of a file, so that the same bytes under
// another file name or media type, in parts sent in another order or
// between other boundaries, are the same request.
func (f File) Digest() string {
	sum := sha256.Sum256(f.data)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// MarshalJSON writes the file as its Digest, a JSON string: the JSON
// encoding of a request holds what its fingerprint holds, never the bytes.
func (f File) MarshalJSON() ([]byte, error) {
	return json.Marshal(f.Digest())
}

// TooLargeError is a file part larger than its property's maxLength; the
// HTTP adapter answers it with 413, naming the part.
type TooLargeError struct {
	// Key is the name of the part.
	Key string
	// Size is the part's size and Max the limit, in bytes.
	Size, Max int64
}

// Error formats the error as "form: key: file of N bytes, at most M allowed".
func (e *TooLargeError) Error() string {
	return "form: " + e.Key + ": file of " + strconv.FormatInt(e.Size, 10) + " bytes, at most " + strconv.FormatInt(e.Max, 10) + " allowed"
}

// Upload reads the single file part of n. A text value, nested keys, or
// more than one part under the name are an *Error naming the part; a file
// larger than max bytes (max < 0: no bound) is a *TooLargeError.
func Upload(n *Node, max int64) (File, error) {
	switch {
	case len(n.files) == 0:
		return File{}, n.errorf("want a file part (one with a filename), got a text value")
	case len(n.files) > 1 || len(n.values) > 0 || len(n.children) > 0:
		return File{}, n.errorf("want one file part, got " + strconv.Itoa(len(n.files)+len(n.values)+len(n.children)) + " parts of this name")
	}
	f := n.files[0]
	if max >= 0 && f.Size() > max {
		return File{}, &TooLargeError{Key: n.key, Size: f.Size(), Max: max}
	}
	return f, nil
}
