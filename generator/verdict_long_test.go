//go:build long

package generator

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestPathsMount generates the spec of 40 operations with random
// path-parameter names and a hostile operationId (randomPathSpec), and
// requires the package to vet, and every operation to mount on a
// ServeMux and on chi and read each path value under its OpenAPI name.
// The golden specs' packages are compiled by cmd/idemgen's golden compile
// test, and check, explain and generate are held to one judgement of them
// by TestCommandsAgree there.
func TestPathsMount(t *testing.T) {
	doc, paths := randomPathSpec(t, rand.New(rand.NewPCG(9, 9)), 40)
	out := requireJudged(t, "random path parameters", doc, Options{Package: "paths", GoDir: "paths", Tests: true, Version: "v0.0.0-test"})
	if out == nil {
		t.Fatal("the random path-parameter spec was refused")
	}
	m := verdictModule(t)
	for _, f := range out.Files {
		if strings.HasSuffix(f.Path, ".go") {
			m.write(t, f.Path, f.Content)
		}
	}
	m.write(t, "paths/mount_test.go", fmt.Appendf(nil, mountTest, "paths"))
	m.write(t, "paths/paths_test.go", []byte(paths))
	m.goCmd(t, "vet", "./paths")
	m.goCmd(t, "test", "-count=1", "./paths")
}
