package golden

import (
	"context"
	"fmt"
	"io"
	"os"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemgen/idemgen/runtime/form"
	"github.com/idemgen/idemgen/runtime/idemtest"
	"github.com/idemgen/idemgen/runtime/pgtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// documentsDDL holds the uploaded documents of the service under test,
// each in its tenant, with their bytes.
const documentsDDL = `CREATE TABLE documents (
	id      uuid   PRIMARY KEY DEFAULT gen_random_uuid(),
	tenant  text   NOT NULL,
	name    text   NOT NULL,
	size    bigint NOT NULL,
	sha256  text   NOT NULL,
	purpose text   NOT NULL,
	content bytea  NOT NULL
)`

// service is the business implementation: uploadDocument stores the file's
// bytes, as read through its reader, and answers what it stored.
type service struct{}

var _ Handlers = service{}

func (service) UploadDocument(ctx context.Context, tx pgx.Tx, op *UploadDocumentOperation, req *UploadDocumentRequest) (UploadDocumentResponse, error) {
	f := req.Body.File
	content, err := io.ReadAll(f.Reader())
	if err != nil {
		return nil, err
	}
	d := Document{Name: f.Name, Size: f.Size(), Sha256: f.Digest(), Purpose: string(req.Body.Purpose)}
	err = tx.QueryRow(ctx, "INSERT INTO documents (tenant, name, size, sha256, purpose, content) VALUES ($1, $2, $3, $4, $5, $6) RETURNING id::text",
		op.Scope, d.Name, d.Size, d.Sha256, d.Purpose, content).Scan(&d.ID)
	if err != nil {
		return nil, err
	}
	return UploadDocument201Response{Body: d, Headers: UploadDocument201Headers{Location: "/documents/" + d.ID}}, nil
}

// documents numbers the documents of the tests.
var documents atomic.Int64

// newDocument returns a valid upload: a small PDF-like file of its own and
// text parts.
func newDocument() *UploadDocumentRequest {
	n := documents.Add(1)
	return &UploadDocumentRequest{Body: &UploadDocumentBody{
		File:    form.NewFile(fmt.Sprintf("doc-%d.pdf", n), "application/pdf", fmt.Appendf(nil, "%%PDF-1.7 document %d", n)),
		Purpose: UploadDocumentBodyPurposeInvoice,
		Tags:    []string{"a", "b"},
	}}
}

// newContractFixture gives the generated contract tests the service on a
// schema of the test's own.
func newContractFixture(t *testing.T) *contractFixture {
	cs := pgtest.ConnString(t)
	pool, err := pgxpool.New(t.Context(), cs)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	if _, err := pool.Exec(t.Context(), documentsDDL); err != nil {
		t.Fatal(err)
	}
	return &contractFixture{
		Handlers:   service{},
		ConnString: cs,
		UploadDocument: idemtest.Fixture[UploadDocumentRequest]{
			Request: func(string) *UploadDocumentRequest { return newDocument() },
			Effects: func(ctx context.Context, pool *pgxpool.Pool, scope string) (int, error) {
				var n int
				err := pool.QueryRow(ctx, "SELECT count(*) FROM documents WHERE tenant = $1", scope).Scan(&n)
				return n, err
			},
		},
	}
}
