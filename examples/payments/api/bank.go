package api

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
)

// Bank is the client of the bank simulator (examples/payments/bank).
type Bank struct {
	URL    string       // the bank's base URL, such as http://127.0.0.1:8090
	Client *http.Client // nil is http.DefaultClient; the step's timeout bounds each call
}

// Decision is what the bank decided for a key.
type Decision struct {
	ChargeID int64  `json:"charge_id"`
	Status   string `json:"status"` // approved or declined
}

// Refused is the bank's refusal of a charge it definitely did not make (a
// 4xx): the payment answers it as a problem.
type Refused struct{ Status int }

func (r *Refused) Error() string { return fmt.Sprintf("the bank refused the charge (%d)", r.Status) }

// Charge asks the bank to charge amount on card under key for the
// payment paymentID, which the bank's settlement webhook names. A 201 is
// the decision; a 4xx a Refused; anything else, a 5xx or a failed
// connection, leaves the outcome unknown.
func (b *Bank) Charge(ctx context.Context, key string, paymentID, amount int64, currency, card string) (Decision, error) {
	body, err := json.Marshal(map[string]any{"amount": amount, "currency": currency, "card_token": card, "reference": paymentID})
	if err != nil {
		return Decision{}, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, b.URL+"/charges", bytes.NewReader(body))
	if err != nil {
		return Decision{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Idempotency-Key", key)
	var d Decision
	return d, b.do(req, http.StatusCreated, &d)
}

// Lookup asks the bank what it decided for key; found is false when it
// never charged under it.
func (b *Bank) Lookup(ctx context.Context, key string) (d Decision, found bool, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, b.URL+"/charges/"+url.PathEscape(key), nil)
	if err != nil {
		return d, false, err
	}
	err = b.do(req, http.StatusOK, &d)
	if r, ok := err.(*Refused); ok && r.Status == http.StatusNotFound {
		return d, false, nil
	}
	return d, err == nil, err
}

// do sends req and decodes an answer of status want into v.
func (b *Bank) do(req *http.Request, want int, v any) error {
	client := b.Client
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	switch {
	case err != nil:
		return err
	case resp.StatusCode == want:
		return json.Unmarshal(data, v)
	case resp.StatusCode >= 400 && resp.StatusCode < 500:
		return &Refused{Status: resp.StatusCode}
	}
	return fmt.Errorf("the bank answered %d", resp.StatusCode)
}
