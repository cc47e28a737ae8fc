package shop

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/jackc/pgx/v5"

	"github.com/idemgen/idemgen/runtime/idem"
)

// SchemaSQL creates the shop's tables and seeds its stock.
//
//go:embed schema.sql
var SchemaSQL string

// The problem types of the shop's business refusals.
const (
	ProblemOrderExists = "https://github.com/idemgen/idemgen/tree/main/examples/orders#order-exists"
	ProblemOutOfStock  = "https://github.com/idemgen/idemgen/tree/main/examples/orders#out-of-stock"
	ProblemNoSuchOrder = "https://github.com/idemgen/idemgen/tree/main/examples/orders#no-such-order"
	ProblemBadItems    = "https://github.com/idemgen/idemgen/tree/main/examples/orders#bad-items"
)

// Service implements the generated Handlers on the shop's tables. Every
// write goes through the transaction the runtime hands over, so it commits
// exactly when the idempotency record does.
type Service struct{}

var _ Handlers = Service{}

// CreateOrder stores the order and its items, takes the items out of
// stock, and enqueues the confirmation email and the warehouse
// reservation. It answers 201 with the order and its Location; an item
// out of stock is the documented 409, which names the item.
func (Service) CreateOrder(ctx context.Context, tx pgx.Tx, op *CreateOrderOperation, req *CreateOrderRequest) (CreateOrderResponse, error) {
	o := req.Body
	if rej := checkItems(o.Items); rej != nil {
		return nil, rej
	}
	delivery, err := json.Marshal(o.Delivery)
	if err != nil {
		return nil, err
	}
	var id string
	err = tx.QueryRow(ctx, `INSERT INTO orders (id, tenant, shop_id, external_order_id, customer_id, delivery)
		VALUES ($1, $2, $3, $4, $5, $6)
		ON CONFLICT (tenant, shop_id, external_order_id) DO NOTHING
		RETURNING id::text`,
		op.ID, op.Scope, o.ShopID, o.ExternalOrderID, o.CustomerID, string(delivery)).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, &idem.Rejection{Status: http.StatusConflict, Type: ProblemOrderExists, Title: "Order exists",
			Detail: fmt.Sprintf("shop %s already has order %s", o.ShopID, o.ExternalOrderID)}
	}
	if err != nil {
		return nil, err
	}
	// Rows are locked in SKU order, whatever order the request lists them
	// in: two orders of SKU-1 and SKU-2 in opposite orders would otherwise
	// each hold one row and wait for the other's (a deadlock, answered 500).
	for _, it := range bySKU(o.Items) {
		if _, err := tx.Exec(ctx, "INSERT INTO order_items (order_id, sku, quantity) VALUES ($1, $2, $3)", id, it.Sku, it.Quantity); err != nil {
			return nil, err
		}
		tag, err := tx.Exec(ctx, "UPDATE stock SET available = available - $2 WHERE sku = $1 AND available >= $2", it.Sku, it.Quantity)
		if err != nil {
			return nil, err
		}
		if tag.RowsAffected() == 0 {
			return outOfStock(ctx, tx, it)
		}
	}
	if _, err := op.EnqueueConfirmationEmail(ctx, ConfirmationEmail{OrderID: id, CustomerID: o.CustomerID}); err != nil {
		return nil, err
	}
	if _, err := op.EnqueueReserveStock(ctx, StockReservation{OrderID: id, Items: bySKU(o.Items)}); err != nil {
		return nil, err
	}
	return CreateOrder201Response{
		Body: Order{ID: id, ShopID: o.ShopID, ExternalOrderID: o.ExternalOrderID, CustomerID: o.CustomerID,
			Items: o.Items, Delivery: o.Delivery, Status: OrderStatusPending},
		Headers: CreateOrder201Headers{Location: "/orders/" + id},
	}, nil
}

// outOfStock is the documented 409 of an item the stock cannot cover: the
// problem names the item and how many are left. The contract stores it
// (store-failures: [4xx]) after rolling back the order.
func outOfStock(ctx context.Context, tx pgx.Tx, it OrderItem) (CreateOrderResponse, error) {
	var available int64
	if err := tx.QueryRow(ctx, "SELECT available FROM stock WHERE sku = $1", it.Sku).Scan(&available); err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return nil, err
	}
	detail := fmt.Sprintf("%d of %s ordered, %d in stock", it.Quantity, it.Sku, available)
	return CreateOrder409Response{Body: OrderConflict{Type: ProblemOutOfStock, Title: "Out of stock", Status: http.StatusConflict,
		Detail: &detail, Sku: &it.Sku, Available: &available}}, nil
}

// CancelOrder cancels a pending order of the tenant, puts its items back
// in stock and enqueues the stock release and the cancellation email.
func (Service) CancelOrder(ctx context.Context, tx pgx.Tx, op *CancelOrderOperation, req *CancelOrderRequest) (CancelOrderResponse, error) {
	order, err := readOrder(ctx, tx, op.Scope, req.OrderID, true)
	if err != nil {
		return nil, err
	}
	if order.Status == OrderStatusPending {
		if _, err := tx.Exec(ctx, "UPDATE orders SET status = 'cancelled' WHERE id = $1", order.ID); err != nil {
			return nil, err
		}
		for _, it := range order.Items { // in SKU order, as readOrder returns them
			if _, err := tx.Exec(ctx, "UPDATE stock SET available = available + $2 WHERE sku = $1", it.Sku, it.Quantity); err != nil {
				return nil, err
			}
		}
		if _, err := op.EnqueueReleaseStock(ctx, StockReservation{OrderID: order.ID, Items: order.Items}); err != nil {
			return nil, err
		}
		if _, err := op.EnqueueCancellationEmail(ctx, CancellationEmail{OrderID: order.ID, Reason: string(req.Body.Reason)}); err != nil {
			return nil, err
		}
		order.Status = OrderStatusCancelled
	}
	return CancelOrder200Response{Body: *order}, nil
}

// querier is what reading an order needs: a transaction or a pool.
type querier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// ReadOrder returns a tenant's order, or a 404 Rejection when id names no
// order of the tenant, a malformed id included.
func ReadOrder(ctx context.Context, db querier, tenant, id string) (*Order, error) {
	return readOrder(ctx, db, tenant, id, false)
}

// errNoSuchOrder is the refusal for an id that names no order of the
// tenant.
var errNoSuchOrder = &idem.Rejection{Status: http.StatusNotFound, Type: ProblemNoSuchOrder, Title: "No such order"}

func readOrder(ctx context.Context, db querier, tenant, id string, forUpdate bool) (*Order, error) {
	if !isUUID(id) {
		return nil, errNoSuchOrder // never sent to PostgreSQL, which would refuse it (a 500)
	}
	sql := `SELECT id::text, shop_id, external_order_id, customer_id, delivery, status FROM orders WHERE tenant = $1 AND id = $2::uuid`
	if forUpdate {
		sql += " FOR UPDATE"
	}
	var o Order
	var delivery []byte
	err := db.QueryRow(ctx, sql, tenant, id).Scan(&o.ID, &o.ShopID, &o.ExternalOrderID, &o.CustomerID, &delivery, &o.Status)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, errNoSuchOrder
	}
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(delivery, &o.Delivery); err != nil {
		return nil, err
	}
	rows, err := db.Query(ctx, "SELECT sku, quantity FROM order_items WHERE order_id = $1 ORDER BY sku", o.ID)
	if err != nil {
		return nil, err
	}
	items, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (OrderItem, error) {
		var it OrderItem
		err := r.Scan(&it.Sku, &it.Quantity)
		return it, err
	})
	if err != nil {
		return nil, err
	}
	o.Items = items
	return &o, nil
}
