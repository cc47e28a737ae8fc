package httpapi

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
)

// errBodyTimeout: the request body did not arrive within the server's
// read timeout (408).
var errBodyTimeout = errors.New("idem: request body not received in time")

// bodyReadError is the request error of a body that could not be read:
// 408 when it did not arrive in time, 413 when the server's own limit
// (http.MaxBytesReader) stopped it, else 400. The read error itself is
// left out: it names the connection's addresses ("read tcp
// 10.0.0.5:8080->203.0.113.7:51234: i/o timeout"), which no answer may
// disclose.
func bodyReadError(err error) error {
	var tooLarge *http.MaxBytesError
	var netErr net.Error
	switch {
	case errors.As(err, &tooLarge):
		return ErrBodyTooLarge
	case errors.Is(err, os.ErrDeadlineExceeded), errors.As(err, &netErr) && netErr.Timeout():
		return errBodyTimeout
	}
	return fmt.Errorf("%w: the request body could not be read to its end", ErrInvalidBody)
}
