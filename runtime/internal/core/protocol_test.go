package core

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
)

// ProtocolAuto takes the advisory protocol on PostgreSQL only, by the
// version() strings the engines report, and only under READ COMMITTED.
func TestProtocolForVersion(t *testing.T) {
	const pg = "PostgreSQL 15.20 (Debian 15.20-0+deb12u1) on x86_64-pc-linux-gnu, compiled by gcc (Debian 12.2.0-14+deb12u1) 12.2.0, 64-bit"
	for _, isolation := range []string{"repeatable read", "serializable", ""} {
		if got := protocolFor(pg, isolation); got != ProtocolClaimFirst {
			t.Errorf("protocolFor(PostgreSQL, %q) = %v, want claim-first", isolation, got)
		}
	}
	for version, want := range map[string]Protocol{
		"PostgreSQL 15.20 (Debian 15.20-0+deb12u1) on x86_64-pc-linux-gnu, compiled by gcc (Debian 12.2.0-14+deb12u1) 12.2.0, 64-bit": ProtocolAdvisory,
		"PostgreSQL 17.2 on aarch64-unknown-linux-gnu, compiled by gcc (GCC) 12.4.0, 64-bit":                                          ProtocolAdvisory,
		"CockroachDB CCL v24.3.1 (x86_64-pc-linux-gnu, built 2024/12/05 19:53:37, go1.22.8 X:nocoverageredesign)":                     ProtocolClaimFirst,
		"PostgreSQL 11.2-YB-2.20.1.0-b0 on x86_64-pc-linux-gnu, compiled by clang version 16.0.6, 64-bit":                             ProtocolClaimFirst,
		"": ProtocolClaimFirst,
	} {
		if got := protocolFor(version, "read committed"); got != want {
			t.Errorf("protocolFor(%q) = %v, want %v", version, got, want)
		}
	}
}

func TestProtocolNames(t *testing.T) {
	for p, want := range map[Protocol]string{ProtocolAuto: "auto", ProtocolAdvisory: "advisory", ProtocolClaimFirst: "claim-first", 7: "Protocol(7)"} {
		if got := p.String(); got != want {
			t.Errorf("%d.String() = %q, want %q", int(p), got, want)
		}
	}
}

func TestNewRefusesAnUnknownProtocol(t *testing.T) {
	pool, err := pgxpool.New(context.Background(), "postgres://nobody@127.0.0.1:1/none") // never dialled
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	if _, err := New(Config{Pool: pool, Protocol: ProtocolClaimFirst + 1}); err == nil || !strings.Contains(err.Error(), "Protocol(3)") {
		t.Errorf("New with Protocol(3): %v, want an error naming it", err)
	}
}
