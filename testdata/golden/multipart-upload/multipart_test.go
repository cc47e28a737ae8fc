package golden

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemgen/idemgen/runtime/fingerprint"
	"github.com/idemgen/idemgen/runtime/idem"
	"github.com/idemgen/idemgen/runtime/idemimpl"
	"github.com/idemgen/idemgen/runtime/idemtest"
)

// part is one part of a hand-written multipart body: a file part when
// filename is set.
type part struct {
	name, filename, contentType, body string
}

// multipartBody writes parts between boundary lines, as a client would,
// with the closing boundary.
func multipartBody(boundary string, parts ...part) string {
	var b strings.Builder
	for _, p := range parts {
		b.WriteString("--" + boundary + "\r\nContent-Disposition: form-data; name=\"" + p.name + "\"")
		if p.filename != "" {
			b.WriteString("; filename=\"" + p.filename + "\"")
		}
		b.WriteString("\r\n")
		if p.contentType != "" {
			b.WriteString("Content-Type: " + p.contentType + "\r\n")
		}
		b.WriteString("\r\n" + p.body + "\r\n")
	}
	b.WriteString("--" + boundary + "--\r\n")
	return b.String()
}

// uploads is the generated route of uploadDocument on an executor over a
// schema of the test's own, in tenant-a, and the pool of that schema.
func uploads(t *testing.T) (http.Handler, *pgxpool.Pool) {
	t.Helper()
	fx := newContractFixture(t)
	pool, err := pgxpool.New(t.Context(), fx.ConnString)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	if err := idem.Migrate(t.Context(), pool, ""); err != nil {
		t.Fatal(err)
	}
	exec, err := idem.NewExecutor(idem.Config{Pool: pool})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	if err := Register(mux, exec, service{}, func(*http.Request) (string, error) { return "tenant-a", nil }); err != nil {
		t.Fatal(err)
	}
	return mux, pool
}

// send posts body with contentType (none when empty) under key.
func send(h http.Handler, key, contentType, body string) idemtest.Response {
	req := idemtest.NewRequest(http.MethodPost, "/documents", key, []byte(body))
	req.Header.Del("Content-Type")
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	return idemtest.Serve(h, req)
}

// stored counts the documents of tenant-a.
func stored(t *testing.T, pool *pgxpool.Pool) int {
	t.Helper()
	var n int
	if err := pool.QueryRow(t.Context(), "SELECT count(*) FROM documents WHERE tenant = 'tenant-a'").Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestMultipartUpload sends a real multipart upload through the generated
// route on PostgreSQL: the business gets the file's name, media type, size
// and bytes; a retry with another boundary, its text parts in another
// order and the file under another name replays the first answer (the
// fingerprint holds the file's digest, not its name or the body's
// framing); the same key with other bytes is a 422.
func TestMultipartUpload(t *testing.T) {
	h, pool := uploads(t)
	content := "%PDF-1.7\x00\xff binary \r\n--not-a-boundary\r\n bytes"
	first := multipartBody("AaB03x",
		part{name: "purpose", body: "receipt"},
		part{name: "file", filename: "scan.pdf", contentType: "application/pdf", body: content},
		part{name: "tags[0]", body: "x"},
		part{name: "tags[1]", body: "y"},
		part{name: "metadata[order]", body: "42"},
	)
	res := send(h, "upload-1", "multipart/form-data; boundary=AaB03x", first)
	if res.Status != http.StatusCreated {
		t.Fatalf("upload: %d %s", res.Status, res.Body)
	}
	var got Document
	if err := json.Unmarshal(res.Body, &got); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte(content))
	want := Document{ID: got.ID, Name: "scan.pdf", Size: int64(len(content)), Sha256: "sha256:" + hex.EncodeToString(sum[:]), Purpose: "receipt"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("stored document (-want +got):\n%s", diff)
	}
	var kept []byte
	if err := pool.QueryRow(t.Context(), "SELECT content FROM documents WHERE id::text = $1", got.ID).Scan(&kept); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(kept, []byte(content)) {
		t.Errorf("stored bytes %q, want %q", kept, content)
	}

	retry := multipartBody("----other-boundary-7d1",
		part{name: "metadata[order]", body: "42"},
		part{name: "tags[1]", body: "y"},
		part{name: "file", filename: "renamed.bin", body: content},
		part{name: "tags[0]", body: "x"},
		part{name: "purpose", body: "receipt"},
	)
	again := send(h, "upload-1", "multipart/form-data; boundary=\"----other-boundary-7d1\"", retry)
	if again.Status != http.StatusCreated || again.Header.Get("Idempotent-Replayed") != "true" || !bytes.Equal(again.Body, res.Body) {
		t.Errorf("retry: %d replayed=%q %s, want the first answer replayed", again.Status, again.Header.Get("Idempotent-Replayed"), again.Body)
	}
	other := strings.Replace(retry, "binary", "BINARY", 1)
	if res := send(h, "upload-1", "multipart/form-data; boundary=----other-boundary-7d1", other); res.Status != http.StatusUnprocessableEntity {
		t.Errorf("the same key with other file bytes: %d %s, want 422", res.Status, res.Body)
	}
	if n := stored(t, pool); n != 1 {
		t.Errorf("%d documents stored, want 1", n)
	}
}

// TestMultipartFingerprint decodes the same upload framed several ways
// (boundaries, part order, JSON parts) and requires one fingerprint, and
// another for other bytes.
func TestMultipartFingerprint(t *testing.T) {
	decode := func(boundary string, parts ...part) fingerprint.Sum {
		t.Helper()
		req, err := decodeUploadDocument(&idemimpl.Request{
			Header: http.Header{"Content-Type": {"multipart/form-data; boundary=" + boundary}},
			Body:   []byte(multipartBody(boundary, parts...)),
		})
		if err != nil {
			t.Fatal(err)
		}
		sum, err := fingerprintUploadDocument(req, nil)
		if err != nil {
			t.Fatal(err)
		}
		return sum
	}
	file := part{name: "file", filename: "a.txt", body: "hello"}
	a := decode("b1", part{name: "purpose", body: "invoice"}, part{name: "title", body: "T"}, file)
	b := decode("zz-b2", file, part{name: "title", body: "T"}, part{name: "purpose", body: "invoice"})
	if a != b {
		t.Errorf("the same upload in another order and framing: %s and %s", a, b)
	}
	c := decode("b1", part{name: "purpose", body: "invoice"}, part{name: "title", body: "T"}, part{name: "file", filename: "a.txt", body: "hellO"})
	if a == c {
		t.Errorf("other file bytes gave the same fingerprint %s", a)
	}
	// An object sent as one JSON part, as OpenAPI encodes an object
	// property by default, is the same request as its bracketed keys.
	purpose := part{name: "purpose", body: "invoice"}
	d := decode("b4", purpose, file, part{name: "metadata[order]", body: "42"}, part{name: "tags[]", body: "x"})
	e := decode("b5", part{name: "metadata", contentType: "application/json", body: `{"order": 42}`}, part{name: "tags", contentType: "application/json", body: `["x"]`}, file, purpose)
	if d != e {
		t.Errorf("an object and an array as JSON parts: %s, as bracketed keys: %s", e, d)
	}
}

// TestMultipartHostile sends bodies a client gets wrong or an attacker
// crafts; each is answered with its problem+json (400 naming the part,
// 413 for a part or body over its limit), never a 500, and nothing is
// stored.
func TestMultipartHostile(t *testing.T) {
	h, pool := uploads(t)
	const ct = "multipart/form-data; boundary=XyZ"
	file := part{name: "file", filename: "a.pdf", contentType: "application/pdf", body: "%PDF"}
	purpose := part{name: "purpose", body: "invoice"}
	valid := multipartBody("XyZ", purpose, file)
	long := multipartBody("XyZ", purpose, part{name: "file", filename: "a.pdf", body: strings.Repeat("x", 100)})
	for _, tc := range []struct {
		name        string
		contentType string
		body        string
		status      int
		want        string // in the problem's body
	}{
		{"no boundary", "multipart/form-data", valid, 400, "boundary"},
		{"no Content-Type", "", valid, 400, "boundary"},
		{"another boundary", "multipart/form-data; boundary=other", valid, 400, "invalid multipart body"},
		{"truncated in a part", ct, long[:len(long)-20], 400, `"pointer":"/file","reason":"invalid part`},
		{"truncated in a header", ct, valid[:40], 400, `"reason":"invalid multipart body`},
		{"no closing delimiter", ct, strings.TrimSuffix(valid, "--XyZ--\r\n"), 400, "invalid"},
		{"file missing", ct, multipartBody("XyZ", purpose), 400, `"pointer":"/file","reason":"required key is missing"`},
		{"file as text", ct, multipartBody("XyZ", purpose, part{name: "file", body: "%PDF"}), 400, `"pointer":"/file","reason":"want a file part`},
		{"two files", ct, multipartBody("XyZ", purpose, file, file), 400, `"pointer":"/file","reason":"want one file part, got 2`},
		{"two purposes", ct, multipartBody("XyZ", purpose, purpose, file), 400, `"pointer":"/purpose"`},
		{"purpose as a file", ct, multipartBody("XyZ", part{name: "purpose", filename: "p.txt", body: "invoice"}, file), 400, `"pointer":"/purpose","reason":"want a text value, got a file part"`},
		{"bad enum", ct, multipartBody("XyZ", part{name: "purpose", body: "tax"}, file), 400, `"pointer":"/purpose"`},
		{"bad integer", ct, multipartBody("XyZ", purpose, file, part{name: "pages", body: "ten"}), 400, `"pointer":"/pages"`},
		{"below minimum", ct, multipartBody("XyZ", purpose, file, part{name: "pages", body: "0"}), 400, `"pointer":"/pages"`},
		{"title too long", ct, multipartBody("XyZ", purpose, file, part{name: "title", body: strings.Repeat("t", 21)}), 400, `"pointer":"/title"`},
		{"unknown part", ct, multipartBody("XyZ", purpose, file, part{name: "owner", body: "x"}), 400, `"pointer":"/owner","reason":"unknown key"`},
		{"file in a nested name", ct, multipartBody("XyZ", purpose, file, part{name: "tags[0]", filename: "t.txt", body: "x"}), 400, "plain name"},
		{"part without a name", ct, "--XyZ\r\nContent-Disposition: form-data\r\n\r\nx\r\n--XyZ--\r\n", 400, "has no name"},
		{"file over its maxLength", ct, multipartBody("XyZ", purpose, part{name: "file", filename: "big.pdf", body: strings.Repeat("x", 4097)}), 413, `The file part \"file\" is 4097 bytes, at most 4096 allowed.`},
		{"body over the limit", ct, multipartBody("XyZ", purpose, part{name: "thumbnail", filename: "t.png", body: strings.Repeat("x", fingerprint.MaxBodySize)}, file), 413, "request-body-too-large"},
		{"too many parts", ct, multipartBody("XyZ", append(make([]part, 0, 1002), manyParts(1001)...)...), 400, "more than 1000 parts"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := send(h, "hostile-"+strings.ReplaceAll(tc.name, " ", "-"), tc.contentType, tc.body)
			if res.Status != tc.status || res.Header.Get("Content-Type") != "application/problem+json" || !strings.Contains(string(res.Body), tc.want) {
				t.Errorf("%d %s %s, want %d problem+json with %s", res.Status, res.Header.Get("Content-Type"), res.Body, tc.status, tc.want)
			}
		})
	}
	if n := stored(t, pool); n != 0 {
		t.Errorf("%d documents stored, want 0", n)
	}
}

// manyParts returns n text parts of distinct names.
func manyParts(n int) []part {
	parts := make([]part, n)
	for i := range parts {
		parts[i] = part{name: "metadata[k" + strings.Repeat("x", i%7) + string(rune('a'+i%26)) + "]", body: "v"}
	}
	return parts
}
