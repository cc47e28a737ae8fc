package idembroker_test

import (
	"os/exec"
	"strings"
	"testing"
)

// The broker clients' modules.
var clients = []string{"github.com/nats-io/", "github.com/rabbitmq/", "github.com/twmb/"}

// Each adapter links its own broker's client and no other; what a service
// imports without an adapter (runtime/idem, idembroker, brokertest) links
// none.
func TestEachAdapterLinksOnlyItsBroker(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	const pkg = "github.com/idemgen/idemgen/runtime/"
	for p, own := range map[string]string{
		pkg + "idem":                  "",
		pkg + "idembroker":            "",
		pkg + "idembroker/brokertest": "",
		pkg + "idembroker/jetstream":  "github.com/nats-io/",
		pkg + "idembroker/rabbitmq":   "github.com/rabbitmq/",
		pkg + "idembroker/kafka":      "github.com/twmb/",
	} {
		out, err := exec.Command("go", "list", "-deps", p).CombinedOutput()
		if err != nil {
			t.Fatalf("go list -deps %s: %v\n%s", p, err, out)
		}
		linked := map[string]bool{}
		for _, dep := range strings.Fields(string(out)) {
			for _, c := range clients {
				if strings.HasPrefix(dep, c) {
					linked[c] = true
				}
			}
		}
		for _, c := range clients {
			if linked[c] != (c == own) {
				t.Errorf("%s links %s: %v, want %v", p, c, linked[c], c == own)
			}
		}
	}
}
