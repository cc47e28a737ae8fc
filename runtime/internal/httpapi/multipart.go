package httpapi

import (
	"errors"
	"fmt"
	"mime"

	"github.com/idemgen/idemgen/runtime/form"
)

// DecodeMultipart reads the multipart/form-data body of req into dst, a
// generated request struct, with the boundary of the request's
// Content-Type. It reports to report, as violations at JSON pointers, a
// Content-Type without a boundary, a body that does not parse (truncated,
// another boundary, a part without a name, too many parts) and every part
// that does not fit dst (a bad text value, a required file missing, a
// repeated part), and returns false then; the caller checks dst against
// its schema only when it returns true. A file part larger than its
// property's maxLength is an error wrapping ErrBodyTooLarge that names the
// part (413).
func DecodeMultipart(req *Request, dst form.Decoder, report func(pointer, reason string)) (bool, error) {
	_, params, err := mime.ParseMediaType(req.Header.Get("Content-Type"))
	boundary := params["boundary"]
	if err != nil || boundary == "" {
		report("", "a multipart/form-data body needs the boundary parameter of its Content-Type")
		return false, nil
	}
	root, err := form.ParseMultipart(req.Body, boundary)
	if err != nil {
		form.Failures(err, report)
		return false, nil
	}
	err = dst.DecodeForm(root)
	var large *form.TooLargeError
	if errors.As(err, &large) {
		return false, fmt.Errorf("%w: %w", ErrBodyTooLarge, large)
	}
	if err != nil {
		form.Failures(err, report)
		return false, nil
	}
	return true, nil
}
