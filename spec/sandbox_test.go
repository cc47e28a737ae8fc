package spec

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// refSpec is a spec whose request body schema is the $ref ref, written at
// line refLine, column refCol.
func refSpec(ref string) string {
	return `openapi: 3.0.3
info: {title: refs, version: "1"}
paths:
  /orders:
    post:
      requestBody:
        content:
          application/json:
            schema: {$ref: '` + ref + `'}
      responses:
        "201": {description: created}
`
}

// The place of the $ref in refSpec.
const refLine, refCol = 9, 28

// openRecorder records the files a load opens.
type openRecorder struct {
	mu     sync.Mutex
	opened []string
}

// open is LoadOptions.open: it records name and opens it.
func (r *openRecorder) open(name string) (*os.File, error) {
	r.mu.Lock()
	r.opened = append(r.opened, name)
	r.mu.Unlock()
	return os.Open(name)
}

// realDir returns dir with its symbolic links resolved.
func realDir(t *testing.T, dir string) string {
	t.Helper()
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	return real
}

// TestLoadConfinesFileRefs is the reproduction of $refs that read files
// outside the spec's directory (file:///etc/passwd, whose first bytes the
// error echoed, ../ escapes, absolute paths, symbolic links out of the
// tree): each is an error at the $ref, the error never quotes the file,
// and the load opens no file but the spec itself, as the recorder of
// every open shows.
func TestLoadConfinesFileRefs(t *testing.T) {
	tmp := realDir(t, t.TempDir())
	outside := filepath.Join(tmp, "outside")
	putFile(t, outside, "secret.yaml", "Secret: {type: string, description: SECRET-BYTES}\n")
	dir := filepath.Join(tmp, "spec")
	putFile(t, dir, "notes.txt", "SECRET-BYTES in a text file\n")
	if err := os.Symlink(filepath.Join("..", "outside", "secret.yaml"), filepath.Join(dir, "link.yaml")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join("..", "outside"), filepath.Join(dir, "linkdir")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, ref, want string
		// opensTarget is set for the file inside the tree, which may be
		// read but not quoted.
		opensTarget bool
	}{
		{name: "file URL", ref: "file:///etc/passwd#/x", want: "names a file outside"},
		{name: "file URL to a file of the machine", ref: "file://" + outside + "/secret.yaml#/Secret", want: "names a file outside"},
		{name: "absolute path", ref: outside + "/secret.yaml#/Secret", want: "names a file outside"},
		{name: "dot-dot", ref: "../outside/secret.yaml#/Secret", want: "names a file outside"},
		{name: "dot-dot to passwd", ref: "../../../../../../../../../../etc/passwd#/x", want: "names a file outside"},
		{name: "symlink to a file", ref: "link.yaml#/Secret", want: "names a file outside"},
		{name: "symlink to a directory", ref: "linkdir/secret.yaml#/Secret", want: "names a file outside"},
		{name: "symlink to a missing file", ref: "linkdir/missing.yaml#/Secret", want: "names a file outside"},
		{name: "text file", ref: "notes.txt", want: "holds a single value", opensTarget: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := putFile(t, dir, "openapi.yaml", refSpec(tt.ref))
			rec := &openRecorder{}
			_, err := Load(t.Context(), p, LoadOptions{open: rec.open})
			e := onlyError(t, err)
			if e.Pos != (Position{File: p, Line: refLine, Col: refCol}) || e.Path != "$ref" || !strings.Contains(e.Msg, tt.want) {
				t.Errorf("error %q, want %q at the $ref, %d:%d", e, tt.want, refLine, refCol)
			}
			for _, secret := range []string{"SECRET-BYTES", "root:"} {
				if strings.Contains(err.Error(), secret) {
					t.Errorf("the error quotes the file: %v", err)
				}
			}
			want := []string{p}
			if tt.opensTarget {
				want = append(want, filepath.Join(dir, tt.ref))
			}
			if !slices.Equal(rec.opened, want) {
				t.Errorf("opened %q, want %q", rec.opened, want)
			}
		})
	}
}

// TestLoadRefRoot reads files above the spec's directory, through a
// relative path and a symbolic link, when LoadOptions.RefRoot names a
// directory that holds them, and files below the spec's directory
// without it.
func TestLoadRefRoot(t *testing.T) {
	tmp := realDir(t, t.TempDir())
	outside := putFile(t, filepath.Join(tmp, "shared"), "secret.yaml", "Secret: {type: string, description: shared}\n")
	dir := filepath.Join(tmp, "spec")
	inside := putFile(t, dir, "schemas/order.yaml", "Order: {type: string, description: inside}\n")
	if err := os.Symlink(filepath.Join("..", "shared", "secret.yaml"), filepath.Join(dir, "link.yaml")); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		ref, root, target string
	}{
		{"schemas/order.yaml#/Order", "", inside},
		{"../shared/secret.yaml#/Secret", tmp, outside},
		{"link.yaml#/Secret", tmp, outside},
	} {
		t.Run(tt.ref, func(t *testing.T) {
			p := putFile(t, dir, "openapi.yaml", refSpec(tt.ref))
			rec := &openRecorder{}
			doc, err := Load(t.Context(), p, LoadOptions{RefRoot: tt.root, open: rec.open})
			if err != nil {
				t.Fatal(err)
			}
			schema := doc.Operations[0].Op.RequestBody.Value.Content["application/json"].Schema
			if schema.Value == nil || schema.Value.Description == "" {
				t.Errorf("the schema behind %s was not resolved", tt.ref)
			}
			if want := []string{p, tt.target}; !slices.Equal(rec.opened, want) {
				t.Errorf("opened %q, want %q", rec.opened, want)
			}
		})
	}
}

// acceptCounter is a listener that counts the connections made to it and
// never answers them.
type acceptCounter struct {
	ln    net.Listener
	conns chan net.Conn
	first chan struct{} // closed when the first connection is accepted
}

// newAcceptCounter listens on a free port of the loopback interface.
func newAcceptCounter(t *testing.T) *acceptCounter {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	a := &acceptCounter{ln: ln, conns: make(chan net.Conn, 64), first: make(chan struct{})}
	go func() {
		var once sync.Once
		for {
			c, err := ln.Accept()
			if err != nil {
				close(a.conns)
				return
			}
			a.conns <- c
			once.Do(func() { close(a.first) })
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		for c := range a.conns {
			c.Close()
		}
	})
	return a
}

// url is the address of the listener as an http URL.
func (a *acceptCounter) url() string { return "http://" + a.ln.Addr().String() }

// count returns how many connections were made before it was called. It
// makes one more connection of its own and waits for the listener to
// accept it: connections are accepted in the order they were made, so
// every earlier one has been counted by then.
func (a *acceptCounter) count(t *testing.T) int {
	t.Helper()
	own, err := net.Dial("tcp", a.ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer own.Close()
	n := 0
	for c := range a.conns {
		if c.RemoteAddr().String() == own.LocalAddr().String() {
			c.Close()
			return n
		}
		n++
		c.Close()
	}
	t.Fatal("the listener closed")
	return 0
}

// TestLoadMakesNoConnectionForRemoteRef is the reproduction of the $ref
// to a URL that every command fetched, with no timeout: without
// AllowRemoteRefs it is an error at the $ref that says how to allow it,
// and the listener it names sees no connection. A $ref inside an example
// is data, which nothing follows: it is no error, and no connection
// either.
func TestLoadMakesNoConnectionForRemoteRef(t *testing.T) {
	a := newAcceptCounter(t)
	dir := t.TempDir()
	p := putFile(t, dir, "openapi.yaml", refSpec(a.url()+"/schemas.yaml#/Order"))
	// The guard keeps a load that does connect from waiting forever on
	// the listener, which never answers.
	_, err := loadGuarded(t, p, 5*time.Second)
	e := onlyError(t, err)
	if e.Pos != (Position{File: p, Line: refLine, Col: refCol}) || !strings.Contains(e.Msg, "--allow-remote-refs") {
		t.Errorf("error %q, want one at the $ref, %d:%d, that says how to allow it", e, refLine, refCol)
	}
	example := strings.Replace(refSpec("#/components/schemas/Order"), "      responses:", "            example: {schema: {$ref: '"+a.url()+"/common.json#String'}}\n      responses:", 1) +
		"components:\n  schemas:\n    Order: {type: object}\n"
	if _, err := loadGuarded(t, putFile(t, dir, "example.yaml", example), 5*time.Second); err != nil {
		t.Errorf("a $ref to a URL inside an example: %v", err)
	}
	if n := a.count(t); n != 0 {
		t.Errorf("%d connections to the listener a $ref names, want none", n)
	}
}

// TestLoadRemoteRefs fetches a $ref to a URL when AllowRemoteRefs is set,
// and bounds the fetch: a server that never answers is left when the
// load's context ends, a document larger than 16 MiB is refused, and so
// is a remote alias bomb, before kin-openapi parses it.
func TestLoadRemoteRefs(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/schemas.yaml":
			w.Write([]byte("Order: {type: object, description: remote}\n"))
		case "/bomb.yaml":
			w.Write([]byte(aliasBomb()))
		case "/endless.yaml":
			chunk := []byte("# " + strings.Repeat("x", 1<<16) + "\n")
			for r.Context().Err() == nil {
				if _, err := w.Write(chunk); err != nil {
					return
				}
			}
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	dir := t.TempDir()
	opts := LoadOptions{AllowRemoteRefs: true, AllowRemoteRefHosts: []string{"127.0.0.1"}}

	doc, err := Load(t.Context(), putFile(t, dir, "ok.yaml", refSpec(srv.URL+"/schemas.yaml#/Order")), opts)
	if err != nil {
		t.Fatal(err)
	}
	if s := doc.Operations[0].Op.RequestBody.Value.Content["application/json"].Schema.Value; s == nil || s.Description != "remote" {
		t.Errorf("the remote schema was not resolved: %+v", s)
	}

	_, err = Load(t.Context(), putFile(t, dir, "big.yaml", refSpec(srv.URL+"/endless.yaml#/Order")), opts)
	if err == nil || !strings.Contains(err.Error(), "larger than the limit of 16 MiB") {
		t.Errorf("an endless document: %v, want the size limit", err)
	}

	_, err = Load(t.Context(), putFile(t, dir, "bomb.yaml", refSpec(srv.URL+"/bomb.yaml#/components/schemas/S9")), opts)
	if err == nil || !strings.Contains(err.Error(), "expands the document beyond 100000 nodes") {
		t.Errorf("a remote alias bomb: %v, want the expansion refused", err)
	}

	// The context ends once the server has the connection, however long
	// the load took to make it.
	a := newAcceptCounter(t)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	go func() {
		select {
		case <-a.first:
			cancel()
		case <-ctx.Done():
		}
	}()
	_, err = Load(ctx, putFile(t, dir, "silent.yaml", refSpec(a.url()+"/schemas.yaml#/Order")), opts)
	if err == nil || !errors.Is(ctx.Err(), context.Canceled) {
		t.Errorf("a server that never answers: %v, want the load to end with its context", err)
	}
	if n := a.count(t); n != 1 {
		t.Errorf("%d connections, want the one fetch", n)
	}
}
