package api

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemgen/idemgen/runtime/idem"
	"github.com/idemgen/idemgen/runtime/pgtest"
)

// paymentsDB is a database of the test's own with the service's tables
// (idempotency tables in schema idempotency, payments) and, once the
// bank runs on it, the bank's; pool is the test's connection to it.
type paymentsDB struct {
	url  string
	pool *pgxpool.Pool
}

func newPaymentsDB(t *testing.T) *paymentsDB {
	t.Helper()
	url := pgtest.Database(t)
	pool, err := pgxpool.New(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	if err := idem.Migrate(t.Context(), pool, "idempotency"); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(t.Context(), Schema); err != nil {
		t.Fatal(err)
	}
	return &paymentsDB{url: url, pool: pool}
}

// count runs a count query.
func (db *paymentsDB) count(t *testing.T, sql string, args ...any) int {
	t.Helper()
	var n int
	if err := db.pool.QueryRow(t.Context(), sql, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// endLeases lets the leases of the operations of keys run out now, on
// the database's clock: what waiting for them would do, without the wait.
// Its update waits for the row locks a killed process's transaction still
// held, until PostgreSQL has rolled that transaction back.
func (db *paymentsDB) endLeases(t *testing.T, keys ...string) {
	t.Helper()
	if _, err := db.pool.Exec(t.Context(), `UPDATE idempotency.idempotency_progress SET lease_until = now()
WHERE idempotency_key = ANY ($1) AND lease_until > now() AND lease_until < 'infinity'`, keys); err != nil {
		t.Fatal(err)
	}
}

// bankListening is the bank's log line naming the address it listens on.
var bankListening = regexp.MustCompile(`msg="bank listening" addr=(\S+)`)

// bankBuild is the bank simulator's program, built once per test binary
// into a directory TestMain removes.
var bankBuild struct {
	once sync.Once
	dir  string
	err  error
}

// bankBinary builds the bank simulator (../bank), once.
func bankBinary(t *testing.T) string {
	t.Helper()
	bankBuild.once.Do(func() {
		if bankBuild.dir, bankBuild.err = os.MkdirTemp("", "payments-bank-"); bankBuild.err != nil {
			return
		}
		out, err := exec.Command("go", "build", "-o", bankBuild.dir, "../bank").CombinedOutput()
		if err != nil {
			bankBuild.err = fmt.Errorf("go build ../bank: %w\n%s", err, out)
		}
	})
	if bankBuild.err != nil {
		t.Fatal(bankBuild.err)
	}
	return filepath.Join(bankBuild.dir, "bank")
}

// removeBankBinary removes what bankBinary built, for TestMain.
func removeBankBinary() {
	if bankBuild.dir != "" {
		_ = os.RemoveAll(bankBuild.dir)
	}
}

// startBank runs the bank simulator on a free port with db, until the
// test ends, and returns its base URL.
func startBank(t *testing.T, db *paymentsDB) string {
	t.Helper()
	cmd := exec.Command(bankBinary(t), "-addr", "127.0.0.1:0")
	cmd.Env = append(os.Environ(), "DATABASE_URL="+db.url)
	logs, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
	})
	lines := bufio.NewScanner(logs)
	for lines.Scan() {
		if m := bankListening.FindStringSubmatch(lines.Text()); m != nil {
			go func() { _, _ = io.Copy(io.Discard, logs) }()
			return "http://" + m[1]
		}
	}
	t.Fatalf("the bank exited without listening: %v", lines.Err())
	return ""
}

// bankRequest is one request the bank's front passed on.
type bankRequest struct {
	Process string // the service process that sent it
	Method  string // POST charges, GET looks the key up
	Key     string // the charge's idempotency key (the step's key)
}

// bankFront is a recording front of the bank, a reverse proxy that the
// service processes call instead of the bank: it logs every request and
// detects two requests for one key in flight at once, from any
// processes.
type bankFront struct {
	proxy    http.Handler
	mu       sync.Mutex
	log      []bankRequest
	inFlight map[string]int
	overlaps map[string]int // keys → requests that arrived while another for the key was in flight
	// holdMethod and holdNth, when set (hold), name the request held
	// until release is closed: the holdNth-th of holdMethod; held is
	// closed when it arrives, and heldRequest is it. heldGaveUp is set
	// when its sender gave up on it first (the step's timeout): it then
	// never reaches the bank.
	holdMethod    string
	holdNth       int
	release, held chan struct{}
	heldRequest   bankRequest
	heldGaveUp    bool
}

// hold makes the front hold the nth request of method (POST charges, GET
// looks a charge up) that it receives, after counting it in flight, until
// release is called or its sender gives up; held is closed once it holds
// it. Call it before the front has traffic.
func (f *bankFront) hold(method string, nth int) (held <-chan struct{}, release func()) {
	f.holdMethod, f.holdNth, f.release, f.held = method, nth, make(chan struct{}), make(chan struct{})
	return f.held, sync.OnceFunc(func() { close(f.release) })
}

// newBankFront serves a front of the bank at bankURL until the test ends
// and returns it with its URL.
func newBankFront(t *testing.T, bankURL string) (*bankFront, string) {
	t.Helper()
	target, err := url.Parse(bankURL)
	if err != nil {
		t.Fatal(err)
	}
	f := &bankFront{proxy: httputil.NewSingleHostReverseProxy(target), inFlight: map[string]int{}, overlaps: map[string]int{}}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return f, srv.URL
}

func (f *bankFront) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	key := r.Header.Get("Idempotency-Key")
	if r.Method == http.MethodGet {
		key, _ = url.PathUnescape(strings.TrimPrefix(r.URL.EscapedPath(), "/charges/"))
	}
	req := bankRequest{Process: r.Header.Get(processHeader), Method: r.Method, Key: key}
	f.mu.Lock()
	f.log = append(f.log, req)
	if f.inFlight[key] > 0 {
		f.overlaps[key]++
	}
	f.inFlight[key]++
	held := false
	if r.Method == f.holdMethod {
		if f.holdNth--; f.holdNth == 0 {
			held, f.heldRequest = true, req
		}
	}
	f.mu.Unlock()
	defer func() {
		f.mu.Lock()
		f.inFlight[key]--
		f.mu.Unlock()
	}()
	if held {
		close(f.held)
		select {
		case <-f.release:
		case <-r.Context().Done():
			f.mu.Lock()
			f.heldGaveUp = true
			f.mu.Unlock()
			return
		}
	}
	f.proxy.ServeHTTP(w, r)
}

// requests returns the log of the requests from process, for key if it
// is not "".
func (f *bankFront) requests(process, key string) []bankRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []bankRequest
	for _, r := range f.log {
		if r.Process == process && (key == "" || r.Key == key) {
			out = append(out, r)
		}
	}
	return out
}

// serviceProcess is a running child service process.
type serviceProcess struct {
	addr   string
	client *http.Client
	said   chan string // what it said but "listening", such as "reached <point> <idempotency key>"
	cmd    *exec.Cmd
	done   chan struct{}
}

// startService starts a child service process with cfg and waits until
// it listens. Unless killed, it is killed at the end of the test; its
// log is shown if the test failed.
func startService(t *testing.T, cfg serviceConfig) *serviceProcess {
	t.Helper()
	config, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), serviceChildEnv+"="+string(config))
	logs, err := os.Create(filepath.Join(t.TempDir(), cfg.Name+".log"))
	if err != nil {
		t.Fatal(err)
	}
	defer logs.Close() // the child has its own descriptor
	cmd.Stderr = logs
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &serviceProcess{cmd: cmd, done: make(chan struct{}), said: make(chan string, 256),
		client: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}}
	lines := bufio.NewScanner(out)
	listening := make(chan string, 1)
	go func() {
		for lines.Scan() {
			if addr, ok := strings.CutPrefix(lines.Text(), "listening "); ok {
				listening <- addr
			} else {
				p.said <- lines.Text()
			}
		}
		_ = cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() {
		p.kill()
		if t.Failed() {
			b, _ := os.ReadFile(logs.Name())
			t.Logf("service process %s:\n%s", cfg.Name, b)
		}
	})
	select {
	case p.addr = <-listening:
		return p
	case <-p.done:
		t.Fatalf("service process %s exited before listening", cfg.Name)
	}
	return nil
}

// kill ends the process with SIGKILL and waits until it is gone.
func (p *serviceProcess) kill() {
	_ = p.cmd.Process.Kill()
	<-p.done
	p.client.CloseIdleConnections()
}

// waitSaid waits until p has said n more lines and returns them.
func (p *serviceProcess) waitSaid(t *testing.T, n int) []string {
	t.Helper()
	var got []string
	for len(got) < n {
		select {
		case r := <-p.said:
			got = append(got, r)
		case <-p.done:
			t.Fatalf("the service process exited having said %d of %d lines: %q", len(got), n, got)
		}
	}
	return got
}

// answer is what POST /payments answered.
type answer struct {
	Status   int
	Body     string
	Replayed bool
}

// pay sends POST /payments for amount with key to p, asking the attempt
// with the test's headers (stopAt, announce, or nil).
func (p *serviceProcess) pay(ctx context.Context, key string, amount int64, test http.Header) (answer, error) {
	body := fmt.Sprintf(`{"amount":%d,"currency":"EUR","card_token":"tok_visa"}`, amount)
	// A body that cannot be rewound, so that the transport never resends
	// a request that met a killed process.
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+p.addr+"/payments", io.MultiReader(strings.NewReader(body)))
	if err != nil {
		return answer{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Idempotency-Key", key)
	for name, values := range test {
		req.Header[name] = values
	}
	resp, err := p.client.Do(req)
	if err != nil {
		return answer{}, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return answer{Status: resp.StatusCode, Body: string(b), Replayed: resp.Header.Get("Idempotent-Replayed") == "true"}, err
}

// bankCharges counts the bank's charge requests for amount: those it
// acted on for the first time, and the duplicates (a key it had already
// acted on).
func (db *paymentsDB) bankCharges(t *testing.T, amount int64) (acted, duplicates int) {
	t.Helper()
	if err := db.pool.QueryRow(t.Context(), `SELECT count(*) FILTER (WHERE acted AND NOT duplicate), count(*) FILTER (WHERE duplicate)
FROM bank_charges WHERE amount = $1`, amount).Scan(&acted, &duplicates); err != nil {
		t.Fatal(err)
	}
	return acted, duplicates
}

// stopAt asks the child to stop the request's attempt at point.
func stopAt(point string) http.Header { return http.Header{stopHeader: {point}} }

// announce asks the child to say when the request arrives.
var announce = http.Header{announceHeader: {"1"}}

// payUntilDecided sends the payment until it is answered with anything
// but 409 operation-in-progress or a 503, the answers a client retries.
func (p *serviceProcess) payUntilDecided(ctx context.Context, key string, amount int64) (answer, error) {
	for {
		a, err := p.pay(ctx, key, amount, nil)
		if err != nil || (a.Status != http.StatusServiceUnavailable && !inProgress(a)) {
			return a, err
		}
	}
}
