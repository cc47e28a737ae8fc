package bookings

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemgen/idemgen/runtime/idem"
	"github.com/idemgen/idemgen/runtime/pgtest"
)

// hotel serves the generated routes with Service on the hotel's tables and
// the idempotency tables, in a schema of the test's own. The tenant is the
// X-Tenant header, a stand-in for the service's authentication.
func hotel(t *testing.T) (http.Handler, *pgxpool.Pool) {
	t.Helper()
	pool, err := pgxpool.New(t.Context(), pgtest.ConnString(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	if _, err := pool.Exec(t.Context(), SchemaSQL); err != nil {
		t.Fatal(err)
	}
	if err := idem.Migrate(t.Context(), pool, ""); err != nil {
		t.Fatal(err)
	}
	exec, err := idem.NewExecutor(idem.Config{Pool: pool})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	tenant := func(r *http.Request) (string, error) {
		if s := r.Header.Get("X-Tenant"); s != "" {
			return s, nil
		}
		return "", errors.New("no X-Tenant header")
	}
	if err := Register(mux, exec, Service{}, tenant); err != nil {
		t.Fatal(err)
	}
	return mux, pool
}

// post sends a JSON body to the hotel as tenant, with key in the
// Idempotency-Key header when it is not "".
func post(h http.Handler, tenant, target, key, body string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodPost, target, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Tenant", tenant)
	if key != "" {
		req.Header.Set("Idempotency-Key", key)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// bookingBody is a booking request of room R-1 for two under request id.
func bookingBody(id, checkIn, checkOut string) string {
	return `{"booking_request_id":"` + id + `","room_id":"R-1","guest":{"name":"Ann Olsen","email":"ann@example.com"},` +
		`"check_in":"` + checkIn + `","check_out":"` + checkOut + `","guests":2}`
}

func wantStatus(t *testing.T, what string, rec *httptest.ResponseRecorder, status int, problem string) {
	t.Helper()
	if rec.Code != status {
		t.Fatalf("%s: got status %d, body %s; want %d", what, rec.Code, rec.Body, status)
	}
	if problem == "" {
		return
	}
	var p struct{ Type string }
	if err := json.Unmarshal(rec.Body.Bytes(), &p); err != nil || p.Type != problem {
		t.Fatalf("%s: got body %s; want the problem %s", what, rec.Body, problem)
	}
}

// TestDoubleBookingRefused books a room, then refuses an overlapping stay
// under another request id with the 409 room-taken problem, which a retry
// gets replayed, and accepts the stay that starts on the first one's
// check-out day.
func TestDoubleBookingRefused(t *testing.T) {
	h, pool := hotel(t)
	if _, err := pool.Exec(t.Context(), "INSERT INTO rooms (tenant, id, capacity) VALUES ('hotel-1', 'R-1', 2)"); err != nil {
		t.Fatal(err)
	}
	first := post(h, "hotel-1", "/bookings", "", bookingBody("req-1", "2027-03-01", "2027-03-04"))
	wantStatus(t, "first booking", first, http.StatusCreated, "")

	overlap := post(h, "hotel-1", "/bookings", "", bookingBody("req-2", "2027-03-03", "2027-03-06"))
	wantStatus(t, "overlapping booking", overlap, http.StatusConflict, ProblemRoomTaken)
	again := post(h, "hotel-1", "/bookings", "", bookingBody("req-2", "2027-03-03", "2027-03-06"))
	wantStatus(t, "retry of the overlapping booking", again, http.StatusConflict, ProblemRoomTaken)
	if again.Header().Get("Idempotent-Replayed") != "true" {
		t.Errorf("retry of the overlapping booking: Idempotent-Replayed %q, want the stored refusal replayed", again.Header().Get("Idempotent-Replayed"))
	}

	next := post(h, "hotel-1", "/bookings", "", bookingBody("req-3", "2027-03-04", "2027-03-06"))
	wantStatus(t, "booking from the check-out day", next, http.StatusCreated, "")

	var n int
	if err := pool.QueryRow(t.Context(), "SELECT count(*) FROM bookings WHERE tenant = 'hotel-1' AND room_id = 'R-1'").Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 2 {
		t.Errorf("%d bookings of R-1, want 2", n)
	}
}

// TestCheckInUnknownBooking answers a check-in of a booking the tenant
// does not have with 404, also for another tenant's booking.
func TestCheckInUnknownBooking(t *testing.T) {
	h, pool := hotel(t)
	if _, err := pool.Exec(t.Context(), "INSERT INTO rooms (tenant, id, capacity) VALUES ('hotel-1', 'R-1', 2)"); err != nil {
		t.Fatal(err)
	}
	created := post(h, "hotel-1", "/bookings", "", bookingBody("req-1", "2027-03-01", "2027-03-04"))
	wantStatus(t, "booking", created, http.StatusCreated, "")
	var b Booking
	if err := json.Unmarshal(created.Body.Bytes(), &b); err != nil {
		t.Fatal(err)
	}
	body := `{"id_document":"passport","key_cards":1}`
	wantStatus(t, "check-in of no booking", post(h, "hotel-1", "/bookings/nope/checkin", "k-1", body), http.StatusNotFound, ProblemNoSuchBooking)
	wantStatus(t, "check-in of another hotel's booking", post(h, "hotel-2", "/bookings/"+b.ID+"/checkin", "k-2", body), http.StatusNotFound, ProblemNoSuchBooking)
	checkedIn := post(h, "hotel-1", "/bookings/"+b.ID+"/checkin", "k-3", body)
	wantStatus(t, "check-in", checkedIn, http.StatusOK, "")
	if err := json.Unmarshal(checkedIn.Body.Bytes(), &b); err != nil || b.Status != BookingStatusCheckedIn {
		t.Fatalf("check-in: got %s; want the booking checked in", checkedIn.Body)
	}
}
