package golden

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemgen/idemgen/runtime/idem"
	"github.com/idemgen/idemgen/runtime/idemtest"
	"github.com/idemgen/idemgen/runtime/pgtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// notesDDL holds the notes and drafts of the service under test, each in
// its tenant.
const notesDDL = `CREATE TABLE notes (
	id     uuid    PRIMARY KEY DEFAULT gen_random_uuid(),
	tenant text    NOT NULL,
	kind   text    NOT NULL,
	text   text    NOT NULL,
	pinned boolean NOT NULL DEFAULT false
)`

// service is the business implementation: createNote and createDraft
// insert a row, createBookmark records one and publishes it in a second
// step; a retry of createNote or createBookmark (replay: current) answers
// the row as it is now, a retry of createDraft (replay: stored) the first
// answer.
type service struct{}

var _ Handlers = service{}

// insert writes a note of kind in tenant and returns it.
func insert(ctx context.Context, tx pgx.Tx, tenant, kind, text string) (Note, error) {
	n := Note{Text: text}
	err := tx.QueryRow(ctx, "INSERT INTO notes (tenant, kind, text) VALUES ($1, $2, $3) RETURNING id::text", tenant, kind, text).Scan(&n.ID)
	return n, err
}

func (service) CreateNote(ctx context.Context, tx pgx.Tx, op *CreateNoteOperation, req *CreateNoteRequest) (CreateNoteResponse, error) {
	n, err := insert(ctx, tx, op.Scope, "note", req.Body.Text)
	if err != nil {
		return nil, err
	}
	return CreateNote201Response{Body: n, Headers: CreateNote201Headers{Location: "/notes/" + n.ID}}, nil
}

func (service) CreateDraft(ctx context.Context, tx pgx.Tx, op *CreateDraftOperation, req *CreateDraftRequest) (CreateDraftResponse, error) {
	n, err := insert(ctx, tx, op.Scope, "draft", req.Body.Text)
	if err != nil {
		return nil, err
	}
	return CreateDraft201Response{Body: n, Headers: CreateDraft201Headers{Location: "/drafts/" + n.ID}}, nil
}

// CurrentCreateNote reads the note the stored Location names, in the
// stored scope, and answers it as it is now.
func (service) CurrentCreateNote(ctx context.Context, tx pgx.Tx, stored *idem.StoredAnswer, _ *CreateNoteRequest) (CreateNoteResponse, error) {
	n, err := current(ctx, tx, stored, "/notes/", "note")
	if err != nil {
		return nil, err
	}
	return CreateNote201Response{Body: n, Headers: CreateNote201Headers{Location: stored.Location}}, nil
}

// CreateBookmarkRecord records the bookmark, unpublished: the first
// recovery point.
func (service) CreateBookmarkRecord(ctx context.Context, tx pgx.Tx, op *CreateBookmarkOperation, req *CreateBookmarkRequest) (*Note, error) {
	n, err := insert(ctx, tx, op.Scope, "bookmark", req.Body.Text)
	return &n, err
}

// CreateBookmarkPublish publishes the recorded bookmark and answers it.
func (service) CreateBookmarkPublish(ctx context.Context, tx pgx.Tx, _ *CreateBookmarkOperation, _ *CreateBookmarkRequest, in *Note) (CreateBookmarkResponse, error) {
	if _, err := tx.Exec(ctx, "UPDATE notes SET text = text || ' (published)' WHERE id::text = $1", in.ID); err != nil {
		return nil, err
	}
	n := Note{ID: in.ID, Text: in.Text + " (published)"}
	return CreateBookmark201Response{Body: n, Headers: CreateBookmark201Headers{Location: "/bookmarks/" + n.ID}}, nil
}

// CurrentCreateBookmark answers the bookmark the stored Location names as
// it is now.
func (service) CurrentCreateBookmark(ctx context.Context, tx pgx.Tx, stored *idem.StoredAnswer, _ *CreateBookmarkRequest) (CreateBookmarkResponse, error) {
	n, err := current(ctx, tx, stored, "/bookmarks/", "bookmark")
	if err != nil {
		return nil, err
	}
	return CreateBookmark201Response{Body: n, Headers: CreateBookmark201Headers{Location: stored.Location}}, nil
}

// current reads the note of kind that the stored Location (under prefix)
// names, in the stored scope; idem.ErrResourceGone when it is gone.
func current(ctx context.Context, tx pgx.Tx, stored *idem.StoredAnswer, prefix, kind string) (Note, error) {
	id, ok := strings.CutPrefix(stored.Location, prefix)
	if !ok {
		return Note{}, fmt.Errorf("operation %s: no link in the stored answer", stored.OperationID)
	}
	n := Note{ID: id}
	err := tx.QueryRow(ctx, "SELECT text, pinned FROM notes WHERE id::text = $1 AND tenant = $2 AND kind = $3", id, stored.Scope, kind).Scan(&n.Text, &n.Pinned)
	if errors.Is(err, pgx.ErrNoRows) {
		return Note{}, idem.ErrResourceGone
	}
	return n, err
}

// texts numbers the notes of the tests.
var texts atomic.Int64

// newContractFixture gives the generated contract tests the service on a
// schema of the test's own. Touch pins and edits every note (or draft) of
// a scope, so the replay scenario sees createNote's retry answer the
// change and createDraft's the first answer.
func newContractFixture(t *testing.T) *contractFixture {
	cs := pgtest.ConnString(t)
	pool, err := pgxpool.New(t.Context(), cs)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	if _, err := pool.Exec(t.Context(), notesDDL); err != nil {
		t.Fatal(err)
	}
	count := func(kind string) func(context.Context, *pgxpool.Pool, string) (int, error) {
		return func(ctx context.Context, pool *pgxpool.Pool, scope string) (int, error) {
			var n int
			err := pool.QueryRow(ctx, "SELECT count(*) FROM notes WHERE tenant = $1 AND kind = $2", scope, kind).Scan(&n)
			return n, err
		}
	}
	touch := func(kind string) func(context.Context, *pgxpool.Pool, string) error {
		return func(ctx context.Context, pool *pgxpool.Pool, scope string) error {
			_, err := pool.Exec(ctx, "UPDATE notes SET pinned = true, text = text || ' (edited)' WHERE tenant = $1 AND kind = $2", scope, kind)
			return err
		}
	}
	text := func() *NewNote { return &NewNote{Text: fmt.Sprintf("note %d", texts.Add(1))} }
	return &contractFixture{
		Handlers:   service{},
		ConnString: cs,
		CreateNote: idemtest.Fixture[CreateNoteRequest]{
			Request: func(string) *CreateNoteRequest { return &CreateNoteRequest{Body: text()} },
			Effects: count("note"),
			Touch:   touch("note"),
		},
		CreateDraft: idemtest.Fixture[CreateDraftRequest]{
			Request: func(string) *CreateDraftRequest { return &CreateDraftRequest{Body: text()} },
			Effects: count("draft"),
			Touch:   touch("draft"),
		},
		CreateBookmark: idemtest.Fixture[CreateBookmarkRequest]{
			Request: func(string) *CreateBookmarkRequest { return &CreateBookmarkRequest{Body: text()} },
			Effects: count("bookmark"),
			Touch:   touch("bookmark"),
		},
	}
}
