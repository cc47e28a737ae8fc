package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"sync"
	"testing"

	"github.com/idemgen/idemgen/runtime/pgtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

func newTestBank(t *testing.T) (*bank, *httptest.Server) {
	t.Helper()
	b, err := newBank(t.Context(), pgtest.Pool(t), false)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(b.routes())
	t.Cleanup(srv.Close)
	return b, srv
}

func charge(t *testing.T, url, key string, amount int) (int, decision) {
	t.Helper()
	// A body that cannot be rewound: net/http's transport would otherwise
	// resend a request with an Idempotency-Key on a dropped connection,
	// and hide the lost answer.
	body := io.MultiReader(bytes.NewReader(fmt.Appendf(nil, `{"amount":%d,"currency":"EUR","card_token":"tok_1"}`, amount)))
	req, _ := http.NewRequest(http.MethodPost, url+"/charges", body)
	req.Header.Set("Idempotency-Key", key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, decision{}
	}
	defer resp.Body.Close()
	var d decision
	answer, _ := io.ReadAll(resp.Body)
	_ = json.Unmarshal(answer, &d)
	return resp.StatusCode, d
}

func (b *bank) count(t *testing.T, where string) int {
	t.Helper()
	var n int
	if err := b.pool.QueryRow(context.Background(), `SELECT count(*) FROM bank_charges WHERE `+where).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// 32 concurrent charges with one key: one acted on, 31 duplicates, one
// answer.
func TestBankActsOncePerKey(t *testing.T) {
	b, srv := newTestBank(t)
	var wg sync.WaitGroup
	answers := make([]decision, 32)
	for i := range answers {
		wg.Go(func() {
			code, d := charge(t, srv.URL, "k1", 500)
			if code != http.StatusCreated {
				t.Errorf("charge %d answered %d", i, code)
			}
			answers[i] = d
		})
	}
	wg.Wait()
	for _, d := range answers {
		if d != answers[0] || d.Status != "approved" {
			t.Errorf("answers differ: %+v vs %+v", d, answers[0])
		}
	}
	if acted, dup := b.count(t, "acted AND NOT duplicate"), b.count(t, "duplicate"); acted != 1 || dup != 31 {
		t.Errorf("%d acted, %d duplicates; want 1 and 31", acted, dup)
	}
}

// The behaviours: fail refuses before acting; lost acts and drops the
// connection, and the lookup then finds the charge.
func TestBankBehaviours(t *testing.T) {
	b, srv := newTestBank(t)
	set := func(mode string) {
		req, _ := http.NewRequest(http.MethodPut, srv.URL+"/behaviour", bytes.NewReader(fmt.Appendf(nil, `{"mode":%q,"count":1}`, mode)))
		resp, err := http.DefaultClient.Do(req)
		if err != nil || resp.StatusCode != http.StatusNoContent {
			t.Fatalf("set %s: %v %v", mode, resp, err)
		}
		resp.Body.Close()
	}
	set("fail")
	if code, _ := charge(t, srv.URL, "k-fail", 100); code != http.StatusServiceUnavailable {
		t.Errorf("fail: %d, want 503", code)
	}
	set("lost")
	if code, _ := charge(t, srv.URL, "k-lost", 100); code != 0 {
		t.Errorf("lost: %d, want no answer", code)
	}
	resp, err := http.Get(srv.URL + "/charges/k-lost")
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("lookup after lost: %v %v", resp, err)
	}
	resp.Body.Close()
	if resp, _ := http.Get(srv.URL + "/charges/k-fail"); resp.StatusCode != http.StatusNotFound {
		t.Errorf("lookup after fail: %d, want 404", resp.StatusCode)
	}
	if acted, refused := b.count(t, "acted"), b.count(t, "NOT acted"); acted != 1 || refused != 1 {
		t.Errorf("%d acted, %d refused; want 1 and 1", acted, refused)
	}
	if code, d := charge(t, srv.URL, "k-big", 100001); code != http.StatusCreated || d.Status != "declined" {
		t.Errorf("over the limit: %d %+v, want declined", code, d)
	}
}
