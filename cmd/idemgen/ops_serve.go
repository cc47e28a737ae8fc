package main

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/idemgen/idemgen/runtime/idemops/console"
)

// The environment variables that hold the console's tokens: the act
// token reads and acts, the read token only reads.
const (
	consoleActTokenEnv  = "IDEMGEN_CONSOLE_TOKEN"
	consoleReadTokenEnv = "IDEMGEN_CONSOLE_READ_TOKEN"
)

func newOpsServeCommand() *cobra.Command {
	var f opsFlags
	var addr string
	cmd := &cobra.Command{
		Use:   "serve --addr 127.0.0.1:PORT",
		Short: "Serve the support console: search, read and (with the act token) resolve, retry and resume in a browser",
		Long: "serve runs the support console (runtime/idemops/console) on --addr against DATABASE_URL. Sign in with HTTP " +
			"basic auth (your name as the user, a token as the password: your name becomes the actor of your actions) or " +
			"an Authorization: Bearer token. " + consoleActTokenEnv + " reads and acts; " + consoleReadTokenEnv + " only reads. " +
			"Without either the console only reads, and only on a loopback address (127.0.0.1, ::1, localhost) and for " +
			"requests that name it so: serve refuses to start on any other address without a token.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			tokens := consoleTokens{act: os.Getenv(consoleActTokenEnv), read: os.Getenv(consoleReadTokenEnv)}
			if !tokens.configured() && !loopback(addr) {
				return usageError("ops serve: %s is not a loopback address and no token is set: set %s (and %s for readers), "+
					"or serve on 127.0.0.1", addr, consoleActTokenEnv, consoleReadTokenEnv)
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			s, err := f.connect(ctx)
			if err != nil {
				return err
			}
			defer s.pool.Close()
			h, err := console.New(console.Config{Ops: s.ops, Authorize: tokens.authorize,
				Challenge: `Basic realm="idemgen support console", charset="UTF-8"`})
			if err != nil {
				return &exitError{code: exitInternal, err: err}
			}
			ln, err := net.Listen("tcp", addr)
			if err != nil {
				return usageError("ops serve: %w", err)
			}
			srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
			fmt.Fprintf(cmd.OutOrStdout(), "support console on http://%s/\n", ln.Addr())
			go func() {
				<-ctx.Done()
				shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				defer cancel()
				_ = srv.Shutdown(shutdown)
			}()
			if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
				return &exitError{code: exitFindings, err: fmt.Errorf("ops serve: %w", err)}
			}
			return nil
		},
	}
	f.register(cmd)
	cmd.Flags().StringVar(&addr, "addr", "127.0.0.1:8090", "the address to listen on")
	return cmd
}

// consoleTokens are the tokens ops serve admits.
type consoleTokens struct{ act, read string }

func (t consoleTokens) configured() bool { return t.act != "" || t.read != "" }

// authorize admits a request by its bearer token or basic-auth password;
// without tokens, a request to a loopback host name as a reader (a page
// elsewhere cannot reach it by a name of its own, which DNS rebinding
// would use).
func (t consoleTokens) authorize(r *http.Request) console.Principal {
	if !t.configured() {
		if loopback(r.Host) {
			return console.Principal{Role: console.RoleRead}
		}
		return console.Principal{}
	}
	name, secret, basic := r.BasicAuth()
	if !basic {
		bearer, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !ok {
			return console.Principal{}
		}
		name, secret = "", bearer
	}
	switch {
	case t.act != "" && subtle.ConstantTimeCompare([]byte(secret), []byte(t.act)) == 1:
		return console.Principal{Name: name, Role: console.RoleAct}
	case t.read != "" && subtle.ConstantTimeCompare([]byte(secret), []byte(t.read)) == 1:
		return console.Principal{Name: name, Role: console.RoleRead}
	}
	return console.Principal{}
}

// loopback reports whether the host of addr (host:port, or a host) is a
// loopback address or localhost.
func loopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = addr
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
