package idemimpl

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/idemgen/idemgen/runtime/fingerprint"
	"github.com/idemgen/idemgen/runtime/form"
	"github.com/idemgen/idemgen/runtime/idem"
	"github.com/idemgen/idemgen/runtime/jsondecode"
	"github.com/idemgen/idemgen/runtime/pgtest"
	"github.com/idemgen/idemgen/runtime/schema"
)

// scan is the typed request of a hand-wired upload, written as generated
// code writes a multipart body: a file of at most 64 bytes and a note.
type scan struct {
	File form.File
	Note *string
}

func (o *scan) DecodeForm(n *form.Node) error {
	if err := form.Object(n); err != nil {
		return err
	}
	var errs []error
	if c := n.Get("file"); c != nil {
		v0, err := form.Upload(c, 64)
		if err != nil {
			errs = append(errs, err)
		}
		o.File = v0
	} else {
		errs = append(errs, form.Missing(n, "file"))
	}
	if c := n.Get("note"); c != nil {
		v0, err := form.String(c)
		if err != nil {
			errs = append(errs, err)
		}
		o.Note = &v0
	}
	return errors.Join(errs...)
}

// uploadScan is the operation: it stores the file's digest and size.
func uploadScan() Typed[scan] {
	c := Contract{Operation: "uploadScan", Method: "POST", Route: "/scans", MediaTypes: []string{"multipart/form-data"},
		Fingerprint: fingerprint.Spec{MaxBodySize: 4096}}
	return Typed[scan]{
		Contract: c,
		Decode: func(r *Request) (*scan, error) {
			s, d := new(scan), jsondecode.NewValues()
			if ok, err := DecodeMultipart(r, s, d.ViolateAt); err != nil {
				return nil, err
			} else if ok && s.Note != nil {
				d.Enter("note")
				d.MaxLength(*s.Note, 10)
				d.Leave()
			}
			if err := d.Finish(); err != nil {
				return nil, fmt.Errorf("%w: %w", ErrInvalidBody, err)
			}
			return s, nil
		},
		Fingerprint: func(s *scan, params map[string]string) (fingerprint.Sum, error) {
			return fingerprint.SumWith(c.Method, c.Route, params, func(w *fingerprint.Writer) {
				w.BeginObject()
				w.Key("file")
				w.String(s.File.Digest())
				if s.Note != nil {
					w.Key("note")
					w.String(*s.Note)
				}
				w.EndObject()
			})
		},
		Run: func(ctx context.Context, tx pgx.Tx, _ *Operation, _ *Request, s *scan) (*Response, error) {
			var id int64
			if err := tx.QueryRow(ctx, "INSERT INTO scans (digest, size) VALUES ($1, $2) RETURNING id", s.File.Digest(), s.File.Size()).Scan(&id); err != nil {
				return nil, err
			}
			return &Response{Status: http.StatusCreated, Header: http.Header{"Content-Type": {"text/plain"}}, Body: fmt.Appendf(nil, "%d %s", id, s.File.Digest())}, nil
		},
	}
}

// TestMultipartHandler sends multipart bodies through a hand-wired typed
// handler on PostgreSQL: an upload runs once and its retry under another
// boundary replays; a missing boundary, a truncated body, a repeated
// part, a file over its limit and a body over the contract's limit are
// answered with their problem, and nothing of them is stored.
func TestMultipartHandler(t *testing.T) {
	pool := pgtest.Pool(t)
	if err := schema.Migrate(t.Context(), pool, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(t.Context(), "CREATE TABLE scans (id bigserial PRIMARY KEY, digest text NOT NULL, size bigint NOT NULL)"); err != nil {
		t.Fatal(err)
	}
	exec, err := idem.NewExecutor(idem.Config{Pool: pool})
	if err != nil {
		t.Fatal(err)
	}
	h, err := NewTypedHandler(exec, uploadScan(), func(*http.Request) (string, error) { return "tenant-1", nil })
	if err != nil {
		t.Fatal(err)
	}
	body := func(boundary string, parts ...string) string {
		var b strings.Builder
		for _, p := range parts {
			b.WriteString("--" + boundary + "\r\n" + p + "\r\n")
		}
		return b.String() + "--" + boundary + "--\r\n"
	}
	file := func(content string) string {
		return "Content-Disposition: form-data; name=\"file\"; filename=\"s.png\"\r\nContent-Type: image/png\r\n\r\n" + content
	}
	note := "Content-Disposition: form-data; name=\"note\"\r\n\r\nfront"
	send := func(key, contentType, body string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodPost, "/scans", strings.NewReader(body))
		req.Header.Set("Idempotency-Key", key)
		if contentType != "" {
			req.Header.Set("Content-Type", contentType)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec
	}
	first := send("k-1", "multipart/form-data; boundary=AaB03x", body("AaB03x", note, file("\x89PNG\r\n")))
	if first.Code != http.StatusCreated {
		t.Fatalf("upload: %d %s", first.Code, first.Body)
	}
	retry := send("k-1", "multipart/form-data; boundary=zz9", body("zz9", file("\x89PNG\r\n"), note))
	if retry.Code != http.StatusCreated || retry.Header().Get("Idempotent-Replayed") != "true" || retry.Body.String() != first.Body.String() {
		t.Errorf("retry: %d replayed=%q %s, want %s replayed", retry.Code, retry.Header().Get("Idempotent-Replayed"), retry.Body, first.Body)
	}
	for _, tc := range []struct {
		name, contentType, body string
		status                  int
		want                    string
	}{
		{"no boundary", "multipart/form-data", body("AaB03x", file("x")), 400, `"reason":"a multipart/form-data body needs the boundary parameter of its Content-Type"`},
		{"truncated", "multipart/form-data; boundary=AaB03x", body("AaB03x", file("x"))[:60], 400, `"reason":"invalid multipart body: no close delimiter (--AaB03x--)"`},
		{"truncated in the file", "multipart/form-data; boundary=AaB03x", body("AaB03x", file("xyz"))[:100], 400, `"pointer":"/file","reason":"invalid part`},
		{"repeated file", "multipart/form-data; boundary=AaB03x", body("AaB03x", file("x"), file("y")), 400, `"pointer":"/file","reason":"want one file part, got 2 parts of this name"`},
		{"note too long", "multipart/form-data; boundary=AaB03x", body("AaB03x", file("x"), "Content-Disposition: form-data; name=\"note\"\r\n\r\n"+strings.Repeat("n", 11)), 400, `"pointer":"/note"`},
		{"file over its limit", "multipart/form-data; boundary=AaB03x", body("AaB03x", file(strings.Repeat("x", 65))), 413, `"detail":"The file part \"file\" is 65 bytes, at most 64 allowed."`},
		{"body over the limit", "multipart/form-data; boundary=AaB03x", body("AaB03x", note, file(strings.Repeat("x", 5000))), 413, "request-body-too-large"},
		{"JSON", "application/json", `{"file":"x"}`, 415, "unsupported-media-type"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := send("k-"+strings.ReplaceAll(tc.name, " ", "-"), tc.contentType, tc.body)
			if res.Code != tc.status || res.Header().Get("Content-Type") != "application/problem+json" || !strings.Contains(res.Body.String(), tc.want) {
				t.Errorf("%d %s %s, want %d problem+json with %s", res.Code, res.Header().Get("Content-Type"), res.Body, tc.status, tc.want)
			}
		})
	}
	var n int
	if err := pool.QueryRow(t.Context(), "SELECT count(*) FROM scans").Scan(&n); err != nil || n != 1 {
		t.Errorf("%d scans stored (%v), want 1", n, err)
	}
}
