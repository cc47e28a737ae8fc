package bookings

import (
	"context"
	"fmt"
	"os"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemgen/idemgen/runtime/idemtest"
	"github.com/idemgen/idemgen/runtime/pgtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// roomNumbers hands out room numbers, so every request of the tests books
// a room of its own and no two of them overlap.
var roomNumbers atomic.Int64

// newContractFixture gives the generated contract tests the hotel: its
// tables in a schema of the test's own, valid requests, and how to count
// each operation's business effect.
func newContractFixture(t *testing.T) *contractFixture {
	cs := pgtest.ConnString(t)
	pool, err := pgxpool.New(t.Context(), cs)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	if _, err := pool.Exec(t.Context(), SchemaSQL); err != nil {
		t.Fatal(err)
	}
	return &contractFixture{
		Handlers:   Service{},
		ConnString: cs,
		CreateBooking: idemtest.Fixture[CreateBookingRequest]{
			Request: func(scope string) *CreateBookingRequest {
				return &CreateBookingRequest{Body: newBooking(addRoom(t, pool, scope))}
			},
			Effects: countRows("SELECT count(*) FROM bookings WHERE tenant = $1"),
		},
		CheckInBooking: idemtest.Fixture[CheckInBookingRequest]{
			Request: func(scope string) *CheckInBookingRequest {
				id := placeBooking(t, pool, scope, addRoom(t, pool, scope))
				return &CheckInBookingRequest{BookingID: id, Body: &CheckIn{IDDocument: CheckInIDDocumentPassport, KeyCards: 2}}
			},
			Effects: countRows("SELECT count(*) FROM bookings WHERE tenant = $1 AND status = 'checked_in'"),
		},
	}
}

// newBooking is a valid booking of room. BookingRequestID, the key, is
// left empty: RunContract writes each scenario's key into it.
func newBooking(room string) *NewBooking {
	phone := "+47 22 00 00 00"
	return &NewBooking{
		RoomID:   room,
		Guest:    Guest{Name: "Ann Olsen", Email: "ann@example.com", Phone: &phone},
		CheckIn:  "2027-03-01",
		CheckOut: "2027-03-04",
		Guests:   2,
	}
}

// addRoom puts a new room for four into the tenant's hotel and returns its
// id.
func addRoom(t *testing.T, pool *pgxpool.Pool, tenant string) string {
	id := fmt.Sprintf("R-%d", roomNumbers.Add(1))
	if _, err := pool.Exec(t.Context(), "INSERT INTO rooms (tenant, id, capacity) VALUES ($1, $2, 4)", tenant, id); err != nil {
		t.Fatal(err)
	}
	return id
}

// placeBooking puts a booking of room straight into the database, for the
// operations that act on an existing booking.
func placeBooking(t *testing.T, pool *pgxpool.Pool, tenant, room string) string {
	var id string
	err := pool.QueryRow(t.Context(), `INSERT INTO bookings (id, tenant, room_id, guest_name, guest_email, check_in, check_out, guests)
		VALUES (gen_random_uuid(), $1, $2, 'Ann Olsen', 'ann@example.com', '2027-03-01', '2027-03-04', 2) RETURNING id::text`,
		tenant, room).Scan(&id)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func countRows(sql string) func(context.Context, *pgxpool.Pool, string) (int, error) {
	return func(ctx context.Context, pool *pgxpool.Pool, scope string) (int, error) {
		var n int
		err := pool.QueryRow(ctx, sql, scope).Scan(&n)
		return n, err
	}
}
