package httpapi

import (
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"syscall"
	"testing"
)

// readError is the error net/http's server gives a handler's body read
// on a connection between the two addresses.
func readError(err error) error {
	return &net.OpError{Op: "read", Net: "tcp",
		Source: &net.TCPAddr{IP: net.ParseIP("10.0.0.5"), Port: 8080},
		Addr:   &net.TCPAddr{IP: net.ParseIP("203.0.113.7"), Port: 51234}, Err: err}
}

// TestBodyReadErrorsDiscloseNoAddress is the reproduction of the body
// read time-out answered with a 400 that carried the connection's socket
// addresses: a time-out is a 408, a broken read a 400 and the server's
// own body limit a 413, and no answer names an address or the read error.
func TestBodyReadErrorsDiscloseNoAddress(t *testing.T) {
	for _, tt := range []struct {
		name     string
		err      error
		status   int
		wantType string
	}{
		{"read time-out", readError(os.ErrDeadlineExceeded), http.StatusRequestTimeout, ProblemRequestTimeout},
		{"connection reset", readError(syscall.ECONNRESET), http.StatusBadRequest, ProblemInvalidBody},
		{"client gone", io.ErrUnexpectedEOF, http.StatusBadRequest, ProblemInvalidBody},
		{"server's body limit", &http.MaxBytesError{Limit: 10}, http.StatusRequestEntityTooLarge, ProblemBodyTooLarge},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			problemFor(bodyReadError(tt.err)).write(rec)
			var p Problem
			if err := json.Unmarshal(rec.Body.Bytes(), &p); err != nil {
				t.Fatal(err)
			}
			if rec.Code != tt.status || p.Type != tt.wantType || p.Status != tt.status {
				t.Errorf("%d %s, want %d %s", rec.Code, p.Type, tt.status, tt.wantType)
			}
			for _, leak := range []string{"10.0.0.5", "203.0.113.7", "51234", "read tcp", "i/o timeout", "connection reset by peer", tt.err.Error()} {
				if strings.Contains(rec.Body.String(), leak) {
					t.Errorf("the answer discloses %q: %s", leak, rec.Body)
				}
			}
			if !errors.Is(bodyReadError(tt.err), errBodyTimeout) && tt.status == http.StatusRequestTimeout {
				t.Error("a time-out is not errBodyTimeout")
			}
		})
	}
}
