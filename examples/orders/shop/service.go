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
)

// Service implements the generated Handlers on the shop's tables. Every
// write goes through the transaction the runtime hands over, so it commits
// exactly when the idempotency record does.
type Service struct{}

var _ Handlers = Service{}

// CreateOrder stores the order and its items, takes the items out of
// stock, and enqueues the confirmation email and the warehouse
// reservation.
func (Service) CreateOrder(ctx context.Context, tx pgx.Tx, op *CreateOrderOperation, req *NewOrder) (*Order, error) {
	if sku := duplicateSKU(req.Items); sku != "" {
		return nil, &idem.Rejection{Status: http.StatusUnprocessableEntity, Type: ProblemDuplicateSKU, Title: "Duplicate SKU",
			Detail: fmt.Sprintf("the order lists %s on more than one line; put the whole quantity on one", sku)}
	}
	delivery, err := json.Marshal(req.Delivery)
	if err != nil {
		return nil, err
	}
	var id string
	err = tx.QueryRow(ctx, `INSERT INTO orders (id, tenant, shop_id, external_order_id, customer_id, delivery)
		VALUES ($1, $2, $3, $4, $5, $6)
		ON CONFLICT (tenant, shop_id, external_order_id) DO NOTHING
		RETURNING id::text`,
		op.ID, op.Scope, req.ShopID, req.ExternalOrderID, req.CustomerID, delivery).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, &idem.Rejection{Status: http.StatusConflict, Type: ProblemOrderExists, Title: "Order exists",
			Detail: fmt.Sprintf("shop %s already has order %s", req.ShopID, req.ExternalOrderID)}
	}
	if err != nil {
		return nil, err
	}
	for _, it := range req.Items {
		if _, err := tx.Exec(ctx, "INSERT INTO order_items (order_id, sku, quantity) VALUES ($1, $2, $3)", id, it.Sku, it.Quantity); err != nil {
			return nil, err
		}
		tag, err := tx.Exec(ctx, "UPDATE stock SET available = available - $2 WHERE sku = $1 AND available >= $2", it.Sku, it.Quantity)
		if err != nil {
			return nil, err
		}
		if tag.RowsAffected() == 0 {
			return nil, &idem.Rejection{Status: http.StatusConflict, Type: ProblemOutOfStock, Title: "Out of stock",
				Detail: fmt.Sprintf("not enough %s in stock", it.Sku)}
		}
	}
	payload, err := json.Marshal(map[string]any{"order_id": id, "customer_id": req.CustomerID})
	if err != nil {
		return nil, err
	}
	if _, err := op.EnqueueConfirmationEmail(ctx, payload); err != nil {
		return nil, err
	}
	if _, err := op.EnqueueReserveStock(ctx, payload); err != nil {
		return nil, err
	}
	return &Order{ID: id, ShopID: req.ShopID, ExternalOrderID: req.ExternalOrderID, CustomerID: req.CustomerID,
		Items: req.Items, Delivery: req.Delivery, Status: OrderStatusPending}, nil
}

// CancelOrder cancels a pending order of the tenant, puts its items back
// in stock and enqueues the stock release and the cancellation email.
func (Service) CancelOrder(ctx context.Context, tx pgx.Tx, op *CancelOrderOperation, req *Cancellation) (*Order, error) {
	order, err := readOrder(ctx, tx, op.Scope, op.OrderID, true)
	if err != nil {
		return nil, err
	}
	if order.Status == OrderStatusPending {
		if _, err := tx.Exec(ctx, "UPDATE orders SET status = 'cancelled' WHERE id = $1", order.ID); err != nil {
			return nil, err
		}
		for _, it := range order.Items {
			if _, err := tx.Exec(ctx, "UPDATE stock SET available = available + $2 WHERE sku = $1", it.Sku, it.Quantity); err != nil {
				return nil, err
			}
		}
		payload, err := json.Marshal(map[string]any{"order_id": order.ID, "reason": req.Reason})
		if err != nil {
			return nil, err
		}
		if _, err := op.EnqueueReleaseStock(ctx, payload); err != nil {
			return nil, err
		}
		if _, err := op.EnqueueCancellationEmail(ctx, payload); err != nil {
			return nil, err
		}
		order.Status = OrderStatusCancelled
	}
	return order, nil
}

// querier is what reading an order needs: a transaction or a pool.
type querier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// ReadOrder returns a tenant's order, or a 404 Rejection.
func ReadOrder(ctx context.Context, db querier, tenant, id string) (*Order, error) {
	return readOrder(ctx, db, tenant, id, false)
}

func readOrder(ctx context.Context, db querier, tenant, id string, forUpdate bool) (*Order, error) {
	sql := `SELECT id::text, shop_id, external_order_id, customer_id, delivery, status FROM orders WHERE tenant = $1 AND id::text = $2`
	if forUpdate {
		sql += " FOR UPDATE"
	}
	var o Order
	var delivery []byte
	err := db.QueryRow(ctx, sql, tenant, id).Scan(&o.ID, &o.ShopID, &o.ExternalOrderID, &o.CustomerID, &delivery, &o.Status)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, &idem.Rejection{Status: http.StatusNotFound, Type: ProblemNoSuchOrder, Title: "No such order"}
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
