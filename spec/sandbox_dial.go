package spec

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// Remote addresses
//
// With remote references allowed, a spec under review could still name
// http://169.254.169.254/ (a cloud's metadata service), a database on
// localhost or a service of the CI's private network, and have its answer
// parsed, or quoted in an error. So the sandbox connects only to public
// addresses: it resolves the host itself, checks every address it gets,
// and connects to an address it checked, so a DNS answer that changes
// between the check and the connection (rebinding) cannot swap it.
// Loopback, link-local, private, shared (carrier-grade NAT) and other
// non-public addresses are refused, IPv4 addresses inside IPv6 ones too,
// unless LoadOptions.AllowRemoteRefHosts names the host. Redirects are
// dialled the same way, and no proxy from the environment is used, as a
// proxy would connect on the sandbox's behalf.

// errAddressRefused is the error of a connection the sandbox refuses.
type errAddressRefused struct {
	host string
	addr netip.Addr
	why  string
}

// Error words the refusal and how to lift it.
func (e *errAddressRefused) Error() string {
	what := fmt.Sprintf("%s is a %s address", e.host, e.why)
	if e.addr.String() != normalHost(e.host) {
		what = fmt.Sprintf("%s resolves to %s, a %s address", e.host, e.addr, e.why)
	}
	return what + ": idemgen fetches remote references only from public addresses (name the host with --allow-remote-ref-host " + e.host + " to allow it)"
}

// remoteClient returns the HTTP client of a sandbox whose connections
// reach only public addresses and the hosts allowed names.
func remoteClient(allowed []string) *http.Client {
	d := &dialer{allowed: map[string]bool{}}
	for _, h := range allowed {
		d.allowed[normalHost(h)] = true
	}
	transport := &http.Transport{
		Proxy:                  nil,
		DialContext:            d.dial,
		TLSHandshakeTimeout:    remoteTimeout,
		ResponseHeaderTimeout:  remoteTimeout,
		MaxResponseHeaderBytes: 1 << 20,
		ForceAttemptHTTP2:      true,
	}
	return &http.Client{Timeout: remoteTimeout, Transport: transport}
}

// dialer connects to checked addresses.
type dialer struct {
	// allowed holds the hosts, normalised, whose every address may be
	// reached.
	allowed map[string]bool
	net     net.Dialer
}

// normalHost is how hosts are compared: lower case, an IPv6 literal
// without its brackets.
func normalHost(h string) string {
	return strings.ToLower(strings.TrimSuffix(strings.TrimPrefix(h, "["), "]"))
}

// dial resolves the host of addr, refuses it unless every address is
// public or the host is allowed, and connects to the first checked
// address that answers.
func (d *dialer) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	var ips []netip.Addr
	if ip, err := netip.ParseAddr(host); err == nil {
		ips = []netip.Addr{ip}
	} else if ips, err = net.DefaultResolver.LookupNetIP(ctx, "ip", host); err != nil {
		return nil, err
	}
	if !d.allowed[normalHost(host)] {
		for _, ip := range ips {
			if why := nonPublic(ip); why != "" {
				return nil, &errAddressRefused{host: host, addr: ip.Unmap(), why: why}
			}
		}
	}
	var errs []error
	for _, ip := range ips {
		c, err := d.net.DialContext(ctx, network, net.JoinHostPort(ip.Unmap().String(), port))
		if err == nil {
			return c, nil
		}
		errs = append(errs, err)
	}
	if len(errs) == 0 {
		return nil, fmt.Errorf("%s has no address", host)
	}
	return nil, errors.Join(errs...)
}

// Address ranges that netip does not classify.
var (
	sharedRange   = netip.MustParsePrefix("100.64.0.0/10") // carrier-grade NAT; Alibaba Cloud's metadata is 100.100.100.200
	thisNetwork   = netip.MustParsePrefix("0.0.0.0/8")
	reservedRange = netip.MustParsePrefix("240.0.0.0/4")
	siteLocal     = netip.MustParsePrefix("fec0::/10")
	nat64         = netip.MustParsePrefix("64:ff9b::/96")
	sixToFour     = netip.MustParsePrefix("2002::/16")
)

// nonPublic says what kind of non-public address ip is, or "" when it is
// a public one. An IPv4 address mapped into IPv6, or inside a NAT64 or
// 6to4 address, is judged as the IPv4 address it carries.
func nonPublic(ip netip.Addr) string {
	ip = ip.Unmap()
	if ip.Is6() {
		b := ip.As16()
		switch {
		case nat64.Contains(ip):
			return nonPublic(netip.AddrFrom4([4]byte(b[12:16])))
		case sixToFour.Contains(ip):
			return nonPublic(netip.AddrFrom4([4]byte(b[2:6])))
		}
	}
	switch {
	case ip.IsLoopback():
		return "loopback"
	case ip.IsLinkLocalUnicast(), ip.IsLinkLocalMulticast():
		return "link-local"
	case ip.IsPrivate(), siteLocal.Contains(ip):
		return "private"
	case sharedRange.Contains(ip):
		return "shared (carrier-grade NAT)"
	case ip.IsUnspecified(), thisNetwork.Contains(ip):
		return "this-network"
	case ip.IsMulticast():
		return "multicast"
	case reservedRange.Contains(ip), !ip.IsGlobalUnicast():
		return "reserved"
	}
	return ""
}
