package spec

import (
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
)

// loopbackServer serves a schema document at /schemas.yaml and redirects
// /elsewhere to where, and counts the connections made to it.
func loopbackServer(t *testing.T, where *string) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var conns atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/schemas.yaml":
			w.Write([]byte("Order: {type: object, description: internal}\n"))
		case "/elsewhere":
			http.Redirect(w, r, *where, http.StatusFound)
		default:
			http.NotFound(w, r)
		}
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	return srv, &conns
}

// TestRemoteRefsReachOnlyPublicAddresses is the reproduction of
// --allow-remote-refs fetching from any address, a cloud's metadata
// service included: a $ref to a server on loopback is refused at the
// $ref, by address or by a name that resolves to it, and the server sees
// no connection; named with AllowRemoteRefHosts it is fetched. A redirect
// from a named host to one that is not is refused too.
func TestRemoteRefsReachOnlyPublicAddresses(t *testing.T) {
	var redirect string
	srv, conns := loopbackServer(t, &redirect)
	port := srv.Listener.Addr().(*net.TCPAddr).Port
	byName := "http://localhost:" + strconv.Itoa(port)
	redirect = byName + "/schemas.yaml"
	dir := t.TempDir()
	for _, tt := range []struct {
		name, url string
		hosts     []string
		// want is part of the error at the $ref, "" for a load that
		// fetches the schema.
		want string
	}{
		{"loopback address", srv.URL, nil, `names a URL whose host 127.0.0.1 is a loopback address: idemgen fetches remote references only from public addresses (name the host with --allow-remote-ref-host 127.0.0.1 to allow it)`},
		{"name of a loopback address", byName, nil, "names a URL whose host localhost resolves to "},
		{"another host named", srv.URL, []string{"localhost"}, "127.0.0.1 is a loopback address"},
		{"redirect to a host not named", srv.URL + "/elsewhere#", []string{"127.0.0.1"}, "localhost resolves to "},
		{"address named", srv.URL, []string{"127.0.0.1"}, ""},
		{"name named, in any case", byName, []string{"LocalHost"}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			before := conns.Load()
			ref := tt.url + "/schemas.yaml#/Order"
			if strings.HasSuffix(tt.url, "#") {
				ref = tt.url + "/Order"
			}
			p := putFile(t, dir, "openapi.yaml", refSpec(ref))
			doc, err := loadMeasured(t, p, LoadOptions{AllowRemoteRefs: true, AllowRemoteRefHosts: tt.hosts})
			if tt.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				if s := doc.Operations[0].Op.RequestBody.Value.Content["application/json"].Schema.Value; s == nil || s.Description != "internal" {
					t.Errorf("the remote schema was not resolved: %+v", s)
				}
				return
			}
			e := onlyError(t, err)
			if e.Pos != (Position{File: p, Line: refLine, Col: refCol}) || e.Path != "$ref" || !strings.Contains(e.Msg, tt.want) {
				t.Errorf("error %q, want one at the $ref that says %q", e, tt.want)
			}
			if n := conns.Load() - before; strings.Contains(tt.name, "redirect") && n != 1 || !strings.Contains(tt.name, "redirect") && n != 0 {
				t.Errorf("%d connections to the server, want %d", n, map[bool]int{true: 1}[strings.Contains(tt.name, "redirect")])
			}
		})
	}
}

// TestNonPublic classifies addresses: what the sandbox refuses and what
// it reaches.
func TestNonPublic(t *testing.T) {
	for addr, want := range map[string]string{
		"127.0.0.1":          "loopback",
		"::1":                "loopback",
		"::ffff:127.0.0.1":   "loopback",
		"169.254.169.254":    "link-local",
		"fe80::1":            "link-local",
		"64:ff9b::a9fe:a9fe": "link-local", // 169.254.169.254 through NAT64
		"2002:a9fe:a9fe::1":  "link-local", // and through 6to4
		"10.1.2.3":           "private",
		"172.16.0.1":         "private",
		"192.168.1.1":        "private",
		"fd00:ec2::254":      "private",
		"fec0::1":            "private",
		"100.100.100.200":    "shared (carrier-grade NAT)",
		"0.0.0.0":            "this-network",
		"0.1.2.3":            "this-network",
		"::":                 "this-network",
		"239.1.2.3":          "multicast",
		"224.0.0.1":          "link-local",
		"255.255.255.255":    "reserved",
		"240.0.0.1":          "reserved",
		"8.8.8.8":            "",
		"140.82.112.3":       "",
		"2606:4700::1111":    "",
		"64:ff9b::808:808":   "",
	} {
		if got := nonPublic(netip.MustParseAddr(addr)); got != want {
			t.Errorf("nonPublic(%s) = %q, want %q", addr, got, want)
		}
	}
}
