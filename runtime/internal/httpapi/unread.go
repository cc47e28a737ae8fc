package httpapi

import (
	"errors"
	"net/http"
)

// unreadBodyError is a refusal decided before the request body was read:
// a missing or malformed key header, or a scope function that failed.
type unreadBodyError struct{ err error }

func (e *unreadBodyError) Error() string { return e.err.Error() }
func (e *unreadBodyError) Unwrap() error { return e.err }

// closeIfUnread has net/http close the connection after a refusal that
// left a request body unread. Otherwise net/http reads up to 256 KB of the
// unread body before it sends the answer, to keep the connection for the
// next request: a client without a key or a caller would get its answer
// only when it has sent the body, or at the server's read timeout. With
// the close the answer goes out at once (net/http still drains the body,
// within the read timeout, before it closes).
func closeIfUnread(w http.ResponseWriter, r *http.Request, err error) {
	var unread *unreadBodyError
	if errors.As(err, &unread) && r.ContentLength != 0 {
		w.Header().Set("Connection", "close")
	}
}
