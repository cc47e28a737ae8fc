package generator

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeConfig writes an idemgen.yaml with content into dir and returns its
// path.
func writeConfig(t *testing.T, dir, content string) string {
	t.Helper()
	p := filepath.Join(dir, "idemgen.yaml")
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestLoadConfigRefusesControlCharacters is the reproduction of the
// schema name with a line break, which reached the migrations and made
// goose refuse them: a control character in any value is an error at the
// value.
func TestLoadConfigRefusesControlCharacters(t *testing.T) {
	for _, tt := range []struct{ name, line, at string }{
		{"schema", `schema: "idem\npotency"`, "3:9: schema"},
		{"package", `package: "shop\r"`, "3:10: package"},
		{"out", `out: "gen\tx"`, "3:6: out"},
		{"spec", `specs: ["a\u0085.yaml"]`, "3:9: specs[0]"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := writeConfig(t, t.TempDir(), "specs: [openapi.yaml]\npackage: shop\n"+tt.line+"\n")
			_, err := LoadConfig(p)
			if err == nil || !strings.Contains(err.Error(), p+":"+tt.at+": ") || !strings.Contains(err.Error(), "control character") {
				t.Errorf("error %v, want one at %s about the control character", err, tt.at)
			}
		})
	}
}

// TestLoadConfigRefusesLinkedOutputDirs is the reproduction of out:
// through a symbolic link, which wrote the generated files outside the
// repository: each output directory that a link takes out of the
// configuration's directory is an error at its value; a link that stays
// inside is followed.
func TestLoadConfigRefusesLinkedOutputDirs(t *testing.T) {
	tmp := t.TempDir()
	outside := filepath.Join(tmp, "outside")
	repo := filepath.Join(tmp, "repo")
	for _, d := range []string{outside, filepath.Join(repo, "internal", "gen")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{"out": outside, "in": filepath.Join("internal", "gen")} {
		if err := os.Symlink(target, filepath.Join(repo, link)); err != nil {
			t.Fatal(err)
		}
	}
	p := writeConfig(t, repo, "specs: [openapi.yaml]\npackage: shop\nout: out/shop\nsqlc: out\nmigrations: {format: goose, dir: ./out/../out/m}\n")
	_, err := LoadConfig(p)
	for _, at := range []string{"3:6: out", "4:7: sqlc", "5:34: migrations.dir"} {
		if err == nil || !strings.Contains(err.Error(), p+":"+at+": ") || !strings.Contains(err.Error(), "through a symbolic link") {
			t.Errorf("error %v, want one at %s", err, at)
		}
	}
	p = writeConfig(t, repo, "specs: [openapi.yaml]\npackage: shop\nout: in/shop\n")
	if c, err := LoadConfig(p); err != nil || c.Options.GoDir != "in/shop" {
		t.Errorf("a link inside the directory: %+v, %v", c, err)
	}
}
