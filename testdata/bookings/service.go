package bookings

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/idemgen/idemgen/runtime/idem"
)

// SchemaSQL creates the hotel's tables.
//
//go:embed schema.sql
var SchemaSQL string

// The problem types of the hotel's business refusals.
const (
	ProblemInvalidStay   = "https://github.com/idemgen/idemgen/tree/main/testdata/bookings#invalid-stay"
	ProblemNoSuchRoom    = "https://github.com/idemgen/idemgen/tree/main/testdata/bookings#no-such-room"
	ProblemRoomTaken     = "https://github.com/idemgen/idemgen/tree/main/testdata/bookings#room-taken"
	ProblemNoSuchBooking = "https://github.com/idemgen/idemgen/tree/main/testdata/bookings#no-such-booking"
)

// Service implements the generated Handlers on the hotel's tables. Every
// write goes through the transaction the runtime hands over, so it commits
// exactly when the idempotency record does.
type Service struct{}

var _ Handlers = Service{}

// CreateBooking books a room of the tenant for the stay, unless another
// booking of the room overlaps it: the room's row is locked first, so two
// bookings of one room are checked one after the other. It enqueues the
// guest's notification and the deposit charge.
func (Service) CreateBooking(ctx context.Context, tx pgx.Tx, op *CreateBookingOperation, r *CreateBookingRequest) (CreateBookingResponse, error) {
	req := r.Body
	checkIn, checkOut, err := stay(req.CheckIn, req.CheckOut)
	if err != nil {
		return nil, err
	}
	var capacity int64
	err = tx.QueryRow(ctx, "SELECT capacity FROM rooms WHERE tenant = $1 AND id = $2 FOR UPDATE", op.Scope, req.RoomID).Scan(&capacity)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, &idem.Rejection{Status: http.StatusUnprocessableEntity, Type: ProblemNoSuchRoom, Title: "No such room",
			Detail: fmt.Sprintf("the hotel has no room %q", req.RoomID)}
	}
	if err != nil {
		return nil, err
	}
	if req.Guests < 1 || req.Guests > capacity {
		return nil, &idem.Rejection{Status: http.StatusUnprocessableEntity, Type: ProblemInvalidStay, Title: "Too many guests",
			Detail: fmt.Sprintf("room %s sleeps %d, not %d", req.RoomID, capacity, req.Guests)}
	}
	var taken string
	err = tx.QueryRow(ctx, `SELECT id::text FROM bookings
		WHERE tenant = $1 AND room_id = $2 AND check_in < $4 AND check_out > $3 LIMIT 1`,
		op.Scope, req.RoomID, checkIn, checkOut).Scan(&taken)
	switch {
	case err == nil:
		return nil, &idem.Rejection{Status: http.StatusConflict, Type: ProblemRoomTaken, Title: "Room taken",
			Detail: fmt.Sprintf("room %s is booked for part of %s to %s", req.RoomID, req.CheckIn, req.CheckOut)}
	case !errors.Is(err, pgx.ErrNoRows):
		return nil, err
	}
	if _, err := tx.Exec(ctx, `INSERT INTO bookings (id, tenant, room_id, guest_name, guest_email, guest_phone, check_in, check_out, guests)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
		op.ID, op.Scope, req.RoomID, req.Guest.Name, req.Guest.Email, req.Guest.Phone, checkIn, checkOut, req.Guests); err != nil {
		return nil, err
	}
	b := &Booking{ID: op.ID, RoomID: req.RoomID, Guest: req.Guest, CheckIn: checkIn.Format(time.DateOnly),
		CheckOut: checkOut.Format(time.DateOnly), Guests: req.Guests, Status: BookingStatusBooked}
	payload, err := json.Marshal(map[string]any{"booking_id": b.ID, "email": b.Guest.Email, "check_in": b.CheckIn, "check_out": b.CheckOut})
	if err != nil {
		return nil, err
	}
	if _, err := op.EnqueueNotifyGuest(ctx, payload); err != nil {
		return nil, err
	}
	if _, err := op.EnqueueChargeDeposit(ctx, payload); err != nil {
		return nil, err
	}
	return CreateBooking201Response{Body: *b}, nil
}

// stay parses the dates of a stay and refuses one that ends before it
// starts.
func stay(in, out string) (time.Time, time.Time, error) {
	checkIn, errIn := time.Parse(time.DateOnly, in)
	checkOut, errOut := time.Parse(time.DateOnly, out)
	if err := errors.Join(errIn, errOut); err != nil {
		return time.Time{}, time.Time{}, &idem.Rejection{Status: http.StatusUnprocessableEntity, Type: ProblemInvalidStay,
			Title: "Invalid dates", Detail: "check_in and check_out must be dates such as 2027-03-01"}
	}
	if !checkOut.After(checkIn) {
		return time.Time{}, time.Time{}, &idem.Rejection{Status: http.StatusUnprocessableEntity, Type: ProblemInvalidStay,
			Title: "Invalid dates", Detail: fmt.Sprintf("check_out %s is not after check_in %s", out, in)}
	}
	return checkIn, checkOut, nil
}

// CheckInBooking checks the guest of a booking of the tenant in, records
// the identity document and the number of key cards, and enqueues the key
// cards and the housekeeping notice. Checking in a booking that is already
// checked in changes nothing and answers with the booking.
func (Service) CheckInBooking(ctx context.Context, tx pgx.Tx, op *CheckInBookingOperation, r *CheckInBookingRequest) (CheckInBookingResponse, error) {
	req := r.Body
	b, err := lockBooking(ctx, tx, op.Scope, r.BookingID)
	if err != nil {
		return nil, err
	}
	if b.Status == BookingStatusCheckedIn {
		return CheckInBooking200Response{Body: *b}, nil
	}
	if _, err := tx.Exec(ctx, `UPDATE bookings SET status = 'checked_in', id_document = $2, key_cards = $3, checked_in_at = now()
		WHERE id = $1`, b.ID, string(req.IDDocument), req.KeyCards); err != nil {
		return nil, err
	}
	payload, err := json.Marshal(map[string]any{"booking_id": b.ID, "room_id": b.RoomID, "key_cards": req.KeyCards})
	if err != nil {
		return nil, err
	}
	if _, err := op.EnqueueIssueKeyCards(ctx, payload); err != nil {
		return nil, err
	}
	if _, err := op.EnqueueNotifyHousekeeping(ctx, payload); err != nil {
		return nil, err
	}
	b.Status = BookingStatusCheckedIn
	return CheckInBooking200Response{Body: *b}, nil
}

// lockBooking reads a tenant's booking and locks its row for the rest of
// the transaction, or returns a 404 Rejection.
func lockBooking(ctx context.Context, tx pgx.Tx, tenant, id string) (*Booking, error) {
	const sql = `SELECT id::text, room_id, guest_name, guest_email, guest_phone, check_in, check_out, guests, status
		FROM bookings WHERE tenant = $1 AND id::text = $2 FOR UPDATE`
	var b Booking
	var checkIn, checkOut time.Time
	err := tx.QueryRow(ctx, sql, tenant, id).Scan(&b.ID, &b.RoomID, &b.Guest.Name, &b.Guest.Email, &b.Guest.Phone,
		&checkIn, &checkOut, &b.Guests, &b.Status)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, &idem.Rejection{Status: http.StatusNotFound, Type: ProblemNoSuchBooking, Title: "No such booking",
			Detail: fmt.Sprintf("no booking %q", id)}
	}
	if err != nil {
		return nil, err
	}
	b.CheckIn, b.CheckOut = checkIn.Format(time.DateOnly), checkOut.Format(time.DateOnly)
	return &b, nil
}
