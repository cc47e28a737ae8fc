package api

import (
	"bufio"
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
)

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

// startBank runs the bank simulator on a free port with db and the
// further flags args, until the test ends, and returns its base URL.
func startBank(t *testing.T, db *paymentsDB, args ...string) string {
	t.Helper()
	cmd := exec.Command(bankBinary(t), append([]string{"-addr", "127.0.0.1:0"}, args...)...)
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
