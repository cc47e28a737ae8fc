package main

import (
	"net/http"
	"time"

	"github.com/idemgen/idemgen/runtime/fingerprint"
)

// limits bound what one client can hold of the server: how long it may
// take to send a request and to read the answer, how long an idle
// connection stays open, and how large a header and a body may be.
type limits struct {
	// ReadHeader bounds the time to send the request header; a connection
	// that sends nothing is closed after it.
	ReadHeader time.Duration
	// Read bounds the time to send the whole request, body included: a
	// body sent a byte a second is cut off after it.
	Read time.Duration
	// Write bounds the time from the end of the header to the end of the
	// answer; it must exceed Read plus the longest an operation may take,
	// which includes a duplicate's wait-timeout (5s in openapi.yaml).
	Write time.Duration
	// Idle bounds how long a keep-alive connection waits for its next
	// request.
	Idle time.Duration
	// HeaderBytes bounds the request header.
	HeaderBytes int
	// BodyBytes bounds every request body. It is one byte more than the
	// generated handlers' own limit (the fingerprint's MaxBodySize), so
	// that they answer a body too large with their 413 problem; it bounds
	// the handlers that have none.
	BodyBytes int64
}

// defaultLimits are the service's limits.
var defaultLimits = limits{
	ReadHeader:  5 * time.Second,
	Read:        10 * time.Second,
	Write:       30 * time.Second,
	Idle:        60 * time.Second,
	HeaderBytes: 16 << 10,
	BodyBytes:   fingerprint.MaxBodySize + 1,
}

// newServer returns the HTTP server of h on addr with the limits l.
func newServer(addr string, h http.Handler, l limits) *http.Server {
	return &http.Server{
		Addr:              addr,
		Handler:           http.MaxBytesHandler(h, l.BodyBytes),
		ReadHeaderTimeout: l.ReadHeader,
		ReadTimeout:       l.Read,
		WriteTimeout:      l.Write,
		IdleTimeout:       l.Idle,
		MaxHeaderBytes:    l.HeaderBytes,
	}
}
