package idemtest_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemgen/idemgen/runtime/fingerprint"
	"github.com/idemgen/idemgen/runtime/idem"
	"github.com/idemgen/idemgen/runtime/idemimpl"
	"github.com/idemgen/idemgen/runtime/idemtest"
	"github.com/idemgen/idemgen/runtime/pgtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// ordersDDL is the business table of the hand-written service: one row per
// order, the natural key unique within a tenant.
const ordersDDL = `CREATE TABLE orders (
	id          bigserial PRIMARY KEY,
	tenant      text   NOT NULL,
	shop        text   NOT NULL,
	customer    text   NOT NULL,
	amount      bigint NOT NULL,
	external_id text,
	UNIQUE (tenant, external_id)
)`

// order is the typed request of createOrder, as the generator would emit
// it: customer, amount and external_id are significant, note is not, and
// idempotency_key carries the key when the contract keeps it in the body.
type order struct {
	IdempotencyKey string `json:"idempotency_key,omitempty"`
	ExternalID     string `json:"external_id,omitempty"`
	Customer       string `json:"customer"`
	Amount         int64  `json:"amount"`
	Note           string `json:"note,omitempty"`
}

// service says how the hand-written createOrder is contracted, and how it
// is broken on purpose.
type service struct {
	bodyKey    bool // the key is /idempotency_key instead of a header
	reject     bool // concurrency reject instead of wait
	naturalKey bool // external_id is the order's natural key
	form       bool // requests are application/x-www-form-urlencoded
	current    bool // replay: current, answered by currentOrder
	broken     string
}

// The broken services RunContract must fail.
const (
	brokenInsertsTwice  = "inserts-twice"  // the business function inserts two orders
	brokenIgnoresAmount = "ignores-amount" // the fingerprint leaves out the significant amount
	brokenOutsideTx     = "outside-tx"     // the business function inserts through the pool, not the transaction
	brokenNone          = "none"           // not broken: the control of the helper process
	// brokenRefusesRepeat is not broken but strict: its own unique
	// constraint refuses a second order of one customer with 409, with no
	// natural key in the contract.
	brokenRefusesRepeat = "refuses-repeat"
	// brokenCurrentEchoes runs under replay: current with a Current hook
	// that answers the stored answer instead of reading the order.
	brokenCurrentEchoes  = "current-echoes"
	brokenEnv            = "IDEMTEST_BROKEN"  // selects the service of TestBrokenHelper
	brokenHelperTestName = "TestBrokenHelper" // the child's test
	routeOrders          = "/shops/{shop}/orders"
	// testShop is the only shop the service knows; its space and slash
	// must survive the URL RunContract builds.
	testShop = "shop 1/a"
)

// orderCase returns createOrder's contract case on a fresh schema holding
// the orders table.
func orderCase(t *testing.T, s service) idemtest.ContractCase[order] {
	t.Helper()
	cs := pgtest.ConnString(t)
	pool, err := pgxpool.New(context.Background(), cs)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	if _, err := pool.Exec(context.Background(), ordersDDL); err != nil {
		t.Fatal(err)
	}
	c := idemimpl.Contract{
		Operation:   "createOrder",
		Method:      http.MethodPost,
		Route:       routeOrders,
		PathParams:  []string{"shop"},
		Fingerprint: fingerprint.Spec{Include: []string{"/amount", "/customer", "/external_id"}},
	}
	if s.bodyKey {
		c.Key.BodyPointer = "/idempotency_key"
	}
	if s.reject {
		c.Concurrency = idemimpl.ConcurrencyReject
	}
	current := s.current || s.broken == brokenCurrentEchoes
	c.ReplayCurrent = current
	var n atomic.Int64
	cc := idemtest.ContractCase[order]{
		Operation: idemimpl.Typed[order]{
			Contract:    c,
			Decode:      decodeOrder,
			Fingerprint: fingerprintOrder(s.broken == brokenIgnoresAmount),
			Run:         runOrder(pool, s.broken),
		},
		ConnString: cs,
		Fixture: idemtest.Fixture[order]{
			Request: func(string) *order {
				i := n.Add(1)
				o := &order{Customer: fmt.Sprintf("c-%d", i), Amount: 100 + i, Note: "leave at the door"}
				if s.naturalKey {
					o.ExternalID = fmt.Sprintf("ext-%d", i)
				}
				return o
			},
			Effects: func(ctx context.Context, pool *pgxpool.Pool, scope string) (int, error) {
				var n int
				err := pool.QueryRow(ctx, "SELECT count(*) FROM orders WHERE tenant = $1", scope).Scan(&n)
				return n, err
			},
			Touch: func(ctx context.Context, pool *pgxpool.Pool, scope string) error {
				_, err := pool.Exec(ctx, "UPDATE orders SET amount = amount + 1000 WHERE tenant = $1", scope)
				return err
			},
		},
		PathParams: func(*order) map[string]string { return map[string]string{"shop": testShop} },
		Parameters: func(*order) (url.Values, http.Header) {
			return url.Values{"channel": {"web"}}, http.Header{"X-Till": {"7"}}
		},
		Change:     func(o *order) { o.Amount++ },
		NaturalKey: s.naturalKey,
	}
	if s.form {
		cc.Encode = encodeOrderForm
	}
	if current {
		cc.Operation.Current = currentOrder(s.broken == brokenCurrentEchoes)
	}
	return cc
}

// currentOrder is createOrder's Current hook under replay: current: it
// reads the order the stored answer names, in the scope's tenant, and
// answers it as the first answer did; an order that is gone is
// idem.ErrResourceGone. echo breaks it by answering the stored body.
func currentOrder(echo bool) idemimpl.CurrentFunc[order] {
	return func(ctx context.Context, tx pgx.Tx, stored *idem.StoredAnswer, _ *idemimpl.Request, _ *order) (*idemimpl.Response, error) {
		if echo {
			return &idemimpl.Response{Status: stored.Status, Header: stored.Header, Body: stored.Body}, nil
		}
		var first struct {
			ID int64 `json:"id"`
		}
		if err := json.Unmarshal(stored.Body, &first); err != nil {
			return nil, err
		}
		var shop, customer string
		var amount int64
		err := tx.QueryRow(ctx, "SELECT shop, customer, amount FROM orders WHERE id = $1 AND tenant = $2", first.ID, stored.Scope).Scan(&shop, &customer, &amount)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil, idem.ErrResourceGone
		}
		if err != nil {
			return nil, err
		}
		return orderAnswer(first.ID, shop, customer, amount)
	}
}

// orderAnswer is createOrder's 201 answer for an order.
func orderAnswer(id int64, shop, customer string, amount int64) (*idemimpl.Response, error) {
	body, err := json.Marshal(map[string]any{"id": id, "shop": shop, "customer": customer, "amount": amount})
	if err != nil {
		return nil, err
	}
	return &idemimpl.Response{Status: http.StatusCreated, Header: http.Header{"Content-Type": {"application/json"}}, Body: body}, nil
}

// decodeOrder reads a JSON or form body.
func decodeOrder(r *idemimpl.Request) (*order, error) {
	var o order
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if mt != "application/x-www-form-urlencoded" {
		if err := json.Unmarshal(r.Body, &o); err != nil {
			return nil, fmt.Errorf("%w: %v", idem.ErrInvalidBody, err)
		}
		return &o, nil
	}
	v, err := url.ParseQuery(string(r.Body))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", idem.ErrInvalidBody, err)
	}
	if o.Amount, err = strconv.ParseInt(v.Get("amount"), 10, 64); err != nil {
		return nil, fmt.Errorf("%w: amount: %v", idem.ErrInvalidBody, err)
	}
	o.Customer, o.ExternalID, o.Note = v.Get("customer"), v.Get("external_id"), v.Get("note")
	return &o, nil
}

// encodeOrderForm renders an order as a form body.
func encodeOrderForm(o *order) ([]byte, string, error) {
	v := url.Values{"customer": {o.Customer}, "amount": {strconv.FormatInt(o.Amount, 10)}, "note": {o.Note}}
	if o.ExternalID != "" {
		v.Set("external_id", o.ExternalID)
	}
	return []byte(v.Encode()), "application/x-www-form-urlencoded", nil
}

// fingerprintOrder is the typed fingerprint the generator would emit for
// the include object of the contract, written by hand; ignoreAmount
// breaks it by writing a constant where the amount belongs.
func fingerprintOrder(ignoreAmount bool) func(*order, map[string]string) (fingerprint.Sum, error) {
	return func(o *order, params map[string]string) (fingerprint.Sum, error) {
		return fingerprint.SumWith(http.MethodPost, routeOrders, params, func(w *fingerprint.Writer) {
			w.BeginObject()
			w.Key("/amount")
			w.BeginArray()
			if ignoreAmount {
				w.Int(0)
			} else {
				w.Int(o.Amount)
			}
			w.EndArray()
			w.Key("/customer")
			w.BeginArray()
			w.String(o.Customer)
			w.EndArray()
			w.Key("/external_id")
			w.BeginArray()
			if o.ExternalID != "" {
				w.String(o.ExternalID)
			}
			w.EndArray()
			w.EndObject()
		})
	}
}

// runOrder is createOrder's business function: it inserts the order in the
// scope's tenant and the path's shop and answers 201 with it; an unknown
// shop is a 404. broken selects a faulty version.
func runOrder(pool *pgxpool.Pool, broken string) func(context.Context, pgx.Tx, *idemimpl.Operation, *idemimpl.Request, *order) (*idemimpl.Response, error) {
	return func(ctx context.Context, tx pgx.Tx, op *idemimpl.Operation, req *idemimpl.Request, o *order) (*idemimpl.Response, error) {
		if shop := req.PathParams["shop"]; shop != testShop {
			return nil, &idem.Rejection{Status: http.StatusNotFound, Title: "Unknown shop", Detail: shop}
		}
		if req.Query.Get("channel") != "web" || req.Header.Get("X-Till") != "7" {
			return nil, &idem.Rejection{Status: http.StatusBadRequest, Title: "Parameters not sent",
				Detail: fmt.Sprintf("channel %q, X-Till %q", req.Query.Get("channel"), req.Header.Get("X-Till"))}
		}
		var db interface {
			QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
		} = tx
		if broken == brokenOutsideTx {
			db = pool
		}
		inserts := 1
		if broken == brokenInsertsTwice {
			inserts = 2
		}
		var id int64
		for range inserts {
			var ext *string
			if o.ExternalID != "" {
				ext = &o.ExternalID
			}
			if broken == brokenRefusesRepeat {
				ext = &o.Customer
			}
			err := db.QueryRow(ctx,
				"INSERT INTO orders (tenant, shop, customer, amount, external_id) VALUES ($1, $2, $3, $4, $5) RETURNING id",
				op.Scope, req.PathParams["shop"], o.Customer, o.Amount, ext).Scan(&id)
			var pgErr *pgconn.PgError
			if errors.As(err, &pgErr) && pgErr.Code == "23505" && broken == brokenRefusesRepeat {
				return nil, &idem.Rejection{Status: http.StatusConflict, Title: "Order exists", Detail: "this customer already ordered"}
			}
			if err != nil {
				return nil, err
			}
		}
		return orderAnswer(id, req.PathParams["shop"], o.Customer, o.Amount)
	}
}

// The hand-written service keeps its contract under every shape the
// generator emits: key in a header or in the body, wait or reject, with or
// without a natural key, JSON or form bodies.
func TestRunContract(t *testing.T) {
	for _, tc := range []struct {
		name string
		s    service
	}{
		{"header key, wait", service{}},
		{"body key, reject, natural key", service{bodyKey: true, reject: true, naturalKey: true}},
		{"form body", service{form: true}},
		{"replay current", service{current: true}},
		{"replay current, body key, reject, natural key", service{current: true, bodyKey: true, reject: true, naturalKey: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			idemtest.RunContract(t, orderCase(t, tc.s))
		})
	}
}

// TestBrokenHelper is the child process of
// TestRunContractFailsBrokenServices: it runs RunContract on the service
// the environment selects, and as a test of its own it does nothing.
func TestBrokenHelper(t *testing.T) {
	broken := os.Getenv(brokenEnv)
	if broken == "" {
		t.Skip("runs only as the child process of TestRunContractFailsBrokenServices")
	}
	idemtest.RunContract(t, orderCase(t, service{broken: broken}))
}

// failedScenario matches the line go test prints for a failed scenario of
// the child.
var failedScenario = regexp.MustCompile(`(?m)^\s*--- FAIL: ` + brokenHelperTestName + `/(\S+)`)

// Must show 2, the test of the tests: RunContract fails each service
// broken on purpose in exactly the scenarios that catch it, and passes the
// same service unbroken. Each runs in a child process, so its failure does
// not fail this test.
func TestRunContractFailsBrokenServices(t *testing.T) {
	all := []string{
		"concurrent_duplicates_one_effect", "lost_response_replays", "changed_field_422", "new_key_new_operation",
		"other_scope_independent", "past_wait_timeout_409", "retention_expired_then_purged", "rolled_back_attempt_leaves_no_effect",
		"replay_after_resource_change",
	}
	for _, tc := range []struct {
		broken     string
		wantFailed []string
	}{
		{brokenNone, nil},
		// Every scenario counts effects, and each run makes two.
		{brokenInsertsTwice, all},
		{brokenIgnoresAmount, []string{"changed_field_422"}},
		// Committed at once, the row shows while the request is held and
		// survives the rollback.
		{brokenOutsideTx, []string{"past_wait_timeout_409", "rolled_back_attempt_leaves_no_effect"}},
		// Its unique constraint refuses the same content under a new key,
		// which that scenario wants to be a second operation; after the
		// purge its refusal of the forgotten key is a new operation's
		// answer, which the retention scenario accepts.
		{brokenRefusesRepeat, []string{"new_key_new_operation"}},
		// Under replay: current its replays are the first answer even
		// after the order changed.
		{brokenCurrentEchoes, []string{"replay_after_resource_change"}},
	} {
		t.Run(tc.broken, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^"+brokenHelperTestName+"$")
			cmd.Env = append(os.Environ(), brokenEnv+"="+tc.broken, "DATABASE_URL="+pgtest.URL(t))
			out, err := cmd.CombinedOutput()
			var failed []string
			for _, m := range failedScenario.FindAllStringSubmatch(string(out), -1) {
				failed = append(failed, m[1])
			}
			slices.Sort(failed)
			want := slices.Clone(tc.wantFailed)
			slices.Sort(want)
			if diff := cmp.Diff(want, failed); diff != "" {
				t.Errorf("failed scenarios (-want +got):\n%s\nchild output:\n%s", diff, out)
			}
			var exitErr *exec.ExitError
			if len(want) > 0 && (!errors.As(err, &exitErr) || exitErr.ExitCode() == 0) {
				t.Errorf("child: %v, want a non-zero exit for a broken service\nchild output:\n%s", err, out)
			}
			if len(want) == 0 && err != nil {
				t.Errorf("child: %v, want success for the unbroken service\nchild output:\n%s", err, out)
			}
		})
	}
}
