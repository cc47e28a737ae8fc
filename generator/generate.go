package generator

import (
	"errors"
	"fmt"
	"path"
	"runtime/debug"
	"slices"
	"strings"
	"sync"

	"github.com/idemgen/idemgen/generator/emit"
	"github.com/idemgen/idemgen/generator/ir"
	"github.com/idemgen/idemgen/spec"
)

// Options says where and how Generate writes. Paths are slash-separated
// and relative to the directory of the configuration.
type Options struct {
	// Package is the Go package name of the generated code.
	Package string
	// GoDir is the directory of the Go files.
	GoDir string
	// Schema is the database schema of the idempotency tables; "" means
	// the first schema of the search_path.
	Schema string
	// Migrations is the migration format; "" emits none.
	Migrations MigrationFormat
	// MigrationsDir is the directory of the migration files.
	MigrationsDir string
	// SQLCDir is where sqlc.yaml and the query files go; "" emits none.
	SQLCDir string
	// Tests emits the contract tests.
	Tests bool
	// Version is the generator version recorded in the package; "" means
	// Version(), the version of the running idemgen. Tests fix it so that
	// golden files do not change with the build.
	Version string
}

// version is the generator version to record.
func (o Options) version() string {
	if o.Version != "" {
		return o.Version
	}
	return Version()
}

// Version is the version of the running idemgen: its module's version
// from the build information (v0.2.0 when installed or run as a
// dependency), or (devel) for a build of the repository itself.
func Version() string {
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Path == modulePath && info.Main.Version != "" {
		return info.Main.Version
	}
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, m := range info.Deps {
			if m.Path == modulePath && m.Version != "" {
				return m.Version
			}
		}
	}
	return "(devel)"
}

// modulePath is idemgen's module.
const modulePath = "github.com/idemgen/idemgen"

// MigrationFormat names a migration tool's file layout.
type MigrationFormat string

// The migration formats.
const (
	MigrationsGoose   MigrationFormat = "goose"
	MigrationsMigrate MigrationFormat = "golang-migrate"
	MigrationsPlain   MigrationFormat = "plain"
)

// Output is what Generate produces: the files, sorted by path.
type Output struct {
	Files []File
}

// VerdictError is Run's error when the judgement of a spec holds an
// error (see Judge): one diagnostic per reason, the spec's rules' and the
// planner's, each with a rule id and a position, sorted by position.
type VerdictError struct {
	Diagnostics []spec.Diagnostic
}

func (e *VerdictError) Error() string {
	var b strings.Builder
	for i, d := range e.Diagnostics {
		if i > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "%s: %s: %s", d.Pos, d.Rule, d.Message)
	}
	return b.String()
}

// Generate emits the files of a judged plan (Judgement.Plan) into one
// package as opts say: it takes the plan, not the document, so nothing is
// planned twice and what is emitted is what was judged. It does no I/O and
// touches no global state, so it is safe to call concurrently; the same
// input always gives the same bytes.
func Generate(plan *Plan, opts Options) (*Output, error) {
	if !isIdentifier(opts.Package) {
		return nil, fmt.Errorf("generator: package name %q is not a Go identifier", opts.Package)
	}
	// The plan is shared: the options go into a copy of its program.
	copied := *plan.Program
	prog := &copied
	prog.Package = opts.Package
	prog.GeneratorVersion = opts.version()
	prog.Files = goFiles(plan.Doc, opts, len(prog.Providers) > 0, hasDecoders(prog))
	// The files render at once: formatting is most of the time, each
	// file's is independent of the others', and emitters only read the
	// program.
	out := &Output{Files: make([]File, len(prog.Files))}
	errs := make([]error, len(prog.Files))
	var wg sync.WaitGroup
	for i, f := range prog.Files {
		wg.Go(func() {
			content, err := emit.File(prog, f)
			out.Files[i], errs[i] = File{Path: f.Path, Content: content}, err
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("generator: %w", err)
	}
	sqlFiles, err := emitSQL(opts)
	if err != nil {
		return nil, err
	}
	out.Files = append(out.Files, sqlFiles...)
	slices.SortFunc(out.Files, func(a, b File) int { return strings.Compare(a.Path, b.Path) })
	return out, nil
}

// hasDecoders reports whether prog has a decoders file: whether a body
// reaches one of its types or a decoder checks a pattern (a parameter's
// among them).
func hasDecoders(prog *ir.Program) bool {
	if len(prog.Patterns) > 0 {
		return true
	}
	for _, d := range prog.Types {
		if d.JSON || d.Form {
			return true
		}
	}
	return false
}

// generatedCodeVersion is the version of the generated code's contract with
// the runtime; it changes when generated code needs a different runtime API.
// Version 3 describes answers to the runtime (idemimpl.Answer, Respond) and
// mounts through it (Route, Mount, Routes, Register); version 4 binds
// status routes (BindStatus) and replay: current hooks (CurrentFunc);
// version 5 decodes enums through the runtime's table walk
// (jsondecode.Decoder.Enum over a generated table of values), optional
// strings and enums with StringPtr and EnumPtr, and looks each member up
// in a table of names (Field); it stores a struct's string fields and
// optional scalars through the runtime (StringTo, StringPtrTo, Int32PtrTo,
// Int64PtrTo, FloatPtrTo, BoolPtrTo; Int32Ptr, Int64Ptr, FloatPtr and
// BoolPtr below a struct's own fields), and its typed fingerprints write a
// scalar or enum member in one call (fingerprint.Writer's MemberString,
// MemberInt, MemberFloat, MemberBool, OptionalString, OptionalInt,
// OptionalInt32, OptionalFloat and OptionalBool); it also receives webhooks
// (the inbox's idemimpl symbols), multipart/form-data bodies
// (idemimpl.DecodeMultipart, form.File, form.Upload) and broker messages
// (idemimpl.NewBrokerConsumer), which a version-4 runtime lacks.
const generatedCodeVersion = 5

// specBase derives a file name prefix from a spec path: orders.yaml gives
// orders, examples/orders/openapi.yaml gives openapi.
func specBase(p string) string {
	b := path.Base(strings.ReplaceAll(p, "\\", "/"))
	if i := strings.IndexByte(b, '.'); i > 0 {
		b = b[:i]
	}
	var s strings.Builder
	for _, r := range strings.ToLower(b) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			s.WriteRune(r)
		} else {
			s.WriteByte('_')
		}
	}
	if s.Len() == 0 {
		return "spec"
	}
	return s.String()
}

// isIdentifier reports whether s is a Go identifier fit for a package name.
func isIdentifier(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if !(r == '_' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (i > 0 && r >= '0' && r <= '9')) {
			return false
		}
	}
	return true
}
