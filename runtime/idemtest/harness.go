package idemtest

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
)

// Response is one recorded HTTP response.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// Serve sends req to h in-process and records the response. A handler
// that aborts the response (panic(http.ErrAbortHandler), as a lost response
// does) gives Status 0.
func Serve(h http.Handler, req *http.Request) (resp Response) {
	rec := httptest.NewRecorder()
	defer func() {
		if v := recover(); v != nil {
			if v != http.ErrAbortHandler {
				panic(v)
			}
			resp = Response{}
		}
	}()
	h.ServeHTTP(rec, req)
	res := rec.Result()
	body, _ := io.ReadAll(res.Body)
	return Response{Status: res.StatusCode, Header: res.Header, Body: body}
}

// NewRequest returns a request with body and, when key is not empty, the
// Idempotency-Key header set to key as written (so tests choose the form).
func NewRequest(method, target, key string, body []byte) *http.Request {
	req := httptest.NewRequest(method, target, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if key != "" {
		req.Header.Set("Idempotency-Key", key)
	}
	return req
}

// Concurrently runs do(0) … do(n-1) on n goroutines that all start at
// once: each waits at a barrier until every goroutine is running, so the
// requests race as hard as the scheduler allows. It returns the results in
// index order.
func Concurrently[T any](n int, do func(i int) T) []T {
	out := make([]T, n)
	var ready, done sync.WaitGroup
	start := make(chan struct{})
	ready.Add(n)
	done.Add(n)
	for i := range n {
		go func() {
			defer done.Done()
			ready.Done()
			<-start
			out[i] = do(i)
		}()
	}
	ready.Wait()
	close(start)
	done.Wait()
	return out
}
