package console

import (
	"crypto/rand"
	"embed"
	"errors"
	"html/template"
	"net/http"
	"strings"

	"github.com/idemgen/idemgen/runtime/idemops"
)

// Role is what a request may do in the console.
type Role int

// The roles, each allowing what the one before it does.
const (
	RoleNone Role = iota // nothing: the console answers 401
	RoleRead             // search and read
	RoleAct              // besides, resolve, retry and resume
)

// Principal is who a request is from, as Config.Authorize tells it.
type Principal struct {
	// Name is the person's name or login: the actor of their actions.
	// "" when the authentication names nobody (a shared token); the
	// action's form then asks for the actor.
	Name string
	Role Role
}

// Config configures the console.
type Config struct {
	// Ops is the support library on the service's database.
	Ops *idemops.Client
	// Authorize says who a request is from and what they may do; it is
	// required, since the console denies by default. A service passes its
	// own authentication here.
	Authorize func(*http.Request) Principal
	// Challenge is the WWW-Authenticate header of the console's 401, such
	// as `Basic realm="support"` for a browser to ask for a password; ""
	// sends none (the service's own sign-in takes the person there).
	Challenge string
	// Prefix is the path the console is mounted at, such as "/support",
	// with http.StripPrefix(Prefix, handler); "" for the root.
	Prefix string
}

//go:embed templates/*.html
var templateFiles embed.FS

// pages are the console's templates; New gives each console a clone
// whose redact hides its Client's SecretFields too.
var pages = template.Must(template.New("").Funcs(template.FuncMap{
	"redact": func(b []byte) string { return idemops.Redact(b) },
	"utc":    utc,
}).ParseFS(templateFiles, "templates/*.html"))

// console is the handler New returns.
type console struct {
	cfg     Config
	csrfKey [32]byte // signs the forms' tokens
	mux     *http.ServeMux
	pages   *template.Template
}

// New returns the console's handler. It refuses a Config without Ops or
// Authorize.
func New(cfg Config) (http.Handler, error) {
	if cfg.Ops == nil {
		return nil, errors.New("console: Config.Ops is required")
	}
	if cfg.Authorize == nil {
		return nil, errors.New("console: Config.Authorize is required: the console serves no one its authentication does not admit")
	}
	cfg.Prefix = strings.TrimSuffix(cfg.Prefix, "/")
	c := &console{cfg: cfg, mux: http.NewServeMux(), pages: template.Must(pages.Clone())}
	c.pages.Funcs(template.FuncMap{"redact": cfg.Ops.Redact})
	rand.Read(c.csrfKey[:])
	c.mux.HandleFunc("GET /{$}", c.search)
	c.mux.HandleFunc("GET /operations/{id}", c.operation)
	c.mux.HandleFunc("POST /actions", c.action)
	return c, nil
}

// ServeHTTP authorizes the request, sets the headers every page has and
// routes it.
func (c *console) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "same-origin") // not no-referrer: a browser then sends Origin: null with the forms
	h.Set("Cache-Control", "no-store")
	p := c.cfg.Authorize(r)
	if p.Role < RoleRead {
		if c.cfg.Challenge != "" {
			h.Set("WWW-Authenticate", c.cfg.Challenge)
		}
		c.refuse(w, http.StatusUnauthorized, "Sign in: the console serves no one its authentication does not admit.")
		return
	}
	c.mux.ServeHTTP(w, r.WithContext(withPrincipal(r.Context(), p)))
}

// refuse answers status with a page saying why.
func (c *console) refuse(w http.ResponseWriter, status int, why string) {
	w.WriteHeader(status)
	c.render(w, "refused.html", map[string]any{"Prefix": c.cfg.Prefix, "Status": status, "Why": why})
}

// render writes the page name with data.
func (c *console) render(w http.ResponseWriter, name string, data any) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if err := c.pages.ExecuteTemplate(w, name, data); err != nil {
		http.Error(w, "console: rendering "+name+" failed", http.StatusInternalServerError)
	}
}
