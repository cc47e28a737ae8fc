package idemimpl

import (
	"github.com/idemgen/idemgen/runtime/form"
	"github.com/idemgen/idemgen/runtime/internal/httpapi"
)

// DecodeMultipart reads the multipart/form-data body of req into dst, a
// generated request struct: text parts through the form decoder, each part
// with a filename as a form.File. What does not fit is reported to report
// (a 400 with every violation) and it returns false; a file part over its
// limit is an error wrapping ErrBodyTooLarge that names the part (413).
func DecodeMultipart(req *Request, dst form.Decoder, report func(pointer, reason string)) (bool, error) {
	return httpapi.DecodeMultipart(req, dst, report)
}
