//go:build long

package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// stormAnswer is a final answer: its status and body, and the payment it
// names.
type stormAnswer struct {
	final   bool
	status  int
	body    string
	payment struct {
		ID     int64  `json:"id"`
		Status string `json:"status"`
	}
}

// stormClient sends the storm's requests and counts them.
type stormClient struct {
	http     *http.Client
	requests atomic.Int64
	retries  atomic.Int64
	mu       sync.Mutex
	byStatus map[string]int
}

func newStormClient() *stormClient {
	return &stormClient{
		http:     &http.Client{Timeout: stormClientTTL, Transport: &http.Transport{MaxIdleConnsPerHost: stormInFlight * stormCopies}},
		byStatus: map[string]int{},
	}
}

// once sends p once: its answer, final when the service gave one that is
// not a temporary refusal.
func (c *stormClient) once(addr string, p stormPaymentSpec) stormAnswer {
	c.requests.Add(1)
	body := fmt.Sprintf(`{"amount":%d,"currency":"EUR","card_token":%q}`, p.amount, p.card)
	req, err := http.NewRequest(http.MethodPost, "http://"+addr+"/payments", strings.NewReader(body))
	if err != nil {
		panic(err)
	}
	req.Header.Set("Idempotency-Key", p.key)
	req.Header.Set("Authorization", "Bearer "+p.merchant)
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.http.Do(req)
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		c.count("refused") // the service is down, between a kill and its restart
		return stormAnswer{}
	case err != nil:
		c.count("no answer") // cut by a kill, or the client's time-out
		return stormAnswer{}
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		c.count("cut")
		return stormAnswer{}
	}
	c.count(strconv.Itoa(resp.StatusCode))
	a := stormAnswer{status: resp.StatusCode, body: string(data)}
	switch resp.StatusCode {
	case http.StatusServiceUnavailable, http.StatusInternalServerError:
		return stormAnswer{}
	case http.StatusConflict:
		var problem struct{ Type string }
		if json.Unmarshal(data, &problem) == nil && strings.HasSuffix(problem.Type, "operation-in-progress") {
			return stormAnswer{}
		}
	case http.StatusCreated:
		if err := json.Unmarshal(data, &a.payment); err != nil {
			return stormAnswer{}
		}
	}
	a.final = true
	return a
}

// untilFinal sends p until it gets a final answer, backing off between
// attempts, until ctx ends.
func (c *stormClient) untilFinal(ctx context.Context, addr string, p stormPaymentSpec) stormAnswer {
	pause := 20 * time.Millisecond
	for n := 0; ; n++ {
		if n > 0 {
			c.retries.Add(1)
		}
		if a := c.once(addr, p); a.final {
			return a
		}
		select {
		case <-ctx.Done():
			return stormAnswer{final: true, status: -1, body: "the client gave up: " + context.Cause(ctx).Error()}
		case <-time.After(pause):
		}
		pause = min(2*pause, time.Second)
	}
}

func (c *stormClient) count(status string) {
	c.mu.Lock()
	c.byStatus[status]++
	c.mu.Unlock()
}

func (c *stormClient) statuses() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.byStatus
}
