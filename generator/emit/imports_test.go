package emit

import (
	"go/format"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// groupImports puts the standard library first and the modules after a
// blank line, keeping aliases, and leaves a file with one group as it is.
func TestGroupImports(t *testing.T) {
	for _, tc := range []struct{ name, src, want string }{
		{"mixed", "package p\n\nimport (\n\t\"context\"\n\tidem \"github.com/x/idem\"\n\t\"github.com/y/z\"\n\t\"net/http\"\n)\n\nvar _ = 1\n",
			"package p\n\nimport (\n\t\"context\"\n\t\"net/http\"\n\n\tidem \"github.com/x/idem\"\n\t\"github.com/y/z\"\n)\n\nvar _ = 1\n"},
		{"standard library only", "package p\n\nimport (\n\t\"context\"\n\t\"net/http\"\n)\n", "package p\n\nimport (\n\t\"context\"\n\t\"net/http\"\n)\n"},
		{"modules only", "package p\n\nimport (\n\t\"github.com/x/a\"\n\t\"github.com/x/b\"\n)\n", "package p\n\nimport (\n\t\"github.com/x/a\"\n\t\"github.com/x/b\"\n)\n"},
		{"one import", "package p\n\nimport \"github.com/x/a\"\n", "package p\n\nimport \"github.com/x/a\"\n"},
		{"none", "package p\n\nvar x = 1\n", "package p\n\nvar x = 1\n"},
	} {
		got, err := groupImports([]byte(tc.src))
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if diff := cmp.Diff(tc.want, string(got)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
		if formatted, err := format.Source(got); err != nil || string(formatted) != string(got) {
			t.Errorf("%s: not as gofmt prints it (%v):\n%s", tc.name, err, got)
		}
	}
}
