package console

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"net/url"
	"time"
)

// principalKey keys the request's Principal in its context.
type principalKey struct{}

func withPrincipal(ctx context.Context, p Principal) context.Context {
	return context.WithValue(ctx, principalKey{}, p)
}

func principal(r *http.Request) Principal {
	p, _ := r.Context().Value(principalKey{}).(Principal)
	return p
}

// csrfCookie names the cookie a form's token is bound to: a random value
// only this browser holds, which another site can neither read nor set.
const csrfCookie = "idemgen_console_csrf"

// csrfToken returns the token the forms of r's page carry, setting the
// browser's cookie first if it has none.
func (c *console) csrfToken(w http.ResponseWriter, r *http.Request) string {
	v := ""
	if ck, err := r.Cookie(csrfCookie); err == nil && len(ck.Value) >= 32 {
		v = ck.Value
	} else {
		var b [32]byte
		rand.Read(b[:])
		v = base64.RawURLEncoding.EncodeToString(b[:])
		http.SetCookie(w, &http.Cookie{Name: csrfCookie, Value: v, Path: c.cfg.Prefix + "/", HttpOnly: true,
			SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil})
	}
	return c.sign(v)
}

// sign is the token of the cookie value v.
func (c *console) sign(v string) string {
	m := hmac.New(sha256.New, c.csrfKey[:])
	m.Write([]byte(v))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// crossSite says why a POST is refused as a cross-site request, or "":
// it must come from this origin (Sec-Fetch-Site, Origin) and carry the
// token of the browser's cookie.
func (c *console) crossSite(r *http.Request) string {
	if s := r.Header.Get("Sec-Fetch-Site"); s != "" && s != "same-origin" {
		return "the browser says the form came from another site (Sec-Fetch-Site: " + s + ")"
	}
	if o := r.Header.Get("Origin"); o != "" {
		u, err := url.Parse(o)
		if err != nil || u.Host != r.Host {
			return "the form came from another origin (" + o + ")"
		}
	}
	ck, err := r.Cookie(csrfCookie)
	if err != nil || !hmac.Equal([]byte(r.PostFormValue("csrf")), []byte(c.sign(ck.Value))) {
		return "the form carries no valid token of this console: reload the page and try again"
	}
	return ""
}

// utc formats t for the pages.
func utc(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format(time.RFC3339)
}
