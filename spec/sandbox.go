package spec

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"go.yaml.in/yaml/v4"

	"github.com/idemgen/idemgen/internal/confine"
)

// Reference sandbox
//
// CI runs check and generate on every pull request, so a spec's $refs are
// untrusted: they must not make the runner call a URL, hang on a server
// that never answers, or read and echo a file such as /etc/passwd. Every
// file and URL a load reads goes through the sandbox: a $ref may name a
// file under the reference root (the spec's directory unless
// LoadOptions.RefRoot names another), symbolic links resolved, and a URL
// only when LoadOptions.AllowRemoteRefs is set, then with a timeout and a
// size limit, from public addresses only (sandbox_dial.go). A $ref that
// breaks these rules is an error at its position, found before anything is
// read for it.

// The limits on one remote fetch.
const (
	remoteTimeout = 10 * time.Second
	maxRemoteSize = 16 << 20
)

// sandbox decides which files and URLs a load may read, and reads them.
type sandbox struct {
	// root is the reference root as an absolute path; realRoot is the same
	// directory with symbolic links resolved; shown is how errors name it,
	// as the caller gave it.
	root, realRoot, shown string
	allowRemote           bool
	// open opens a file for reading: os.Open, or a test's recorder.
	open func(name string) (*os.File, error)
	// fetched caches remote documents by URL, and the failures too: each
	// is fetched at most once per load.
	fetched map[string]fetchResult
	client  *http.Client
}

// newSandbox returns the sandbox of a load of the spec at specPath.
func newSandbox(specPath string, opts LoadOptions) *sandbox {
	root := cmp.Or(opts.RefRoot, filepath.Dir(specPath))
	abs, err := filepath.Abs(root)
	if err != nil {
		abs = filepath.Clean(root)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		real = abs
	}
	b := &sandbox{
		shown:       filepath.Clean(root),
		root:        abs,
		realRoot:    real,
		allowRemote: opts.AllowRemoteRefs,
		open:        os.Open,
		fetched:     map[string]fetchResult{},
		client:      remoteClient(opts.AllowRemoteRefHosts),
	}
	if opts.open != nil {
		b.open = opts.open
	}
	return b
}

// errOutside is the error of a read refused because the file is outside
// the reference root.
type errOutside struct{ root string }

// Error words the refusal and how to lift it.
func (e *errOutside) Error() string {
	return fmt.Sprintf("outside %s, the directory referenced files must be in (the spec's, unless --ref-root DIR names another)", e.root)
}

// errRemote is the error of a URL read while remote references are off.
var errRemote = errors.New("idemgen fetches no remote references unless they are allowed (--allow-remote-refs)")

// confine returns the path to read for the file name, symbolic links
// resolved, or an *errOutside when it is not under the reference root.
// It judges the path as written before it touches the file system, so
// nothing outside the root is even looked up by a ../ or absolute path.
func (b *sandbox) confine(name string) (string, error) {
	abs, err := filepath.Abs(name)
	if err != nil {
		return "", err
	}
	if !confine.Below(abs, b.root) {
		return "", &errOutside{root: b.shown}
	}
	real, err := confine.Real(abs)
	if err != nil {
		return "", err
	}
	if !confine.Below(real, b.realRoot) {
		return "", &errOutside{root: b.shown}
	}
	return real, nil
}

// readFile reads the file name; unless it is the spec itself (confined
// false), only under the reference root. It reads regular files only, so
// a FIFO or a device cannot hang or flood the load.
func (b *sandbox) readFile(name string, confined bool) ([]byte, error) {
	if confined {
		real, err := b.confine(name)
		if err != nil {
			return nil, err
		}
		name = real
	}
	info, err := os.Stat(name)
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, errors.New("not a regular file")
	}
	f, err := b.open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// Sized by the stat, the file is read into one buffer (io.ReadAll
	// grows one from 512 bytes, copying a large spec about twice); a file
	// that grew since is still read whole.
	var buf bytes.Buffer
	buf.Grow(int(min(info.Size(), maxPresize)) + bytes.MinRead)
	if _, err := buf.ReadFrom(f); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// maxPresize bounds the buffer readFile sizes up front by the file's
// stat; a larger file is still read whole, growing the buffer.
const maxPresize = 256 << 20

// fetchResult is one fetch of a remote document: the parsed document, or
// why there is none.
type fetchResult struct {
	src *source
	err error
}

// fetch reads the remote document at u for kin-openapi (see remote).
func (b *sandbox) fetch(ctx context.Context, u *url.URL) ([]byte, error) {
	src, err := b.remote(ctx, u)
	if err != nil {
		return nil, err
	}
	return src.data, nil
}

// remote reads and parses the remote document at u when remote references
// are allowed, within remoteTimeout and maxRemoteSize, and checks its
// bounds as for a file (checkBounds) before anything walks it. Each
// document is fetched once per load; the reference scan (refbounds.go)
// and kin-openapi share the result.
func (b *sandbox) remote(ctx context.Context, u *url.URL) (*source, error) {
	if !b.allowRemote {
		return nil, errRemote
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("unsupported URL scheme %q (want http or https)", u.Scheme)
	}
	doc := *u
	doc.Fragment, doc.RawFragment = "", ""
	key := doc.String()
	if r, ok := b.fetched[key]; ok {
		return r.src, r.err
	}
	data, err := b.get(ctx, key)
	var src *source
	if err == nil {
		src, err = parseSource(key, data)
	}
	if err == nil {
		src.key, src.base = key, &doc
	}
	b.fetched[key] = fetchResult{src: src, err: err}
	return src, err
}

// get fetches the document at the URL key, within remoteTimeout and
// maxRemoteSize.
func (b *sandbox) get(ctx context.Context, key string) ([]byte, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, cancel := context.WithTimeout(ctx, remoteTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, key, nil)
	if err != nil {
		return nil, err
	}
	resp, err := b.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", key, resp.Status)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxRemoteSize+1))
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", key, err)
	}
	if len(data) > maxRemoteSize {
		return nil, fmt.Errorf("GET %s: larger than the limit of %d MiB", key, maxRemoteSize>>20)
	}
	return data, nil
}

// refusal holds the errors at the $refs that name one target the sandbox
// refuses, until the target is needed.
type refusal struct {
	errs     ErrorList
	reported bool
}

// errRefused is what reading a refused target returns; the errors at the
// $refs that name it say why.
var errRefused = errors.New("the reference is refused")

// checkRefs notes every $ref of src that the sandbox refuses: a URL while
// remote references are off, a URL scheme other than http and https, a
// file outside the reference root (named by a relative path, an absolute
// one or a file: URL, or reached through a symbolic link), and a file
// that holds a single value, which kin-openapi would quote in its error.
// It runs when src is parsed, before any of its references is followed,
// and nothing is read for a refused target. The errors are reported when
// the target is needed (refused): a $ref inside an example is data that
// nothing follows, as in Square's spec.
func (l *loader) checkRefs(src *source) {
	walkRefs(src.root, func(ref *yaml.Node) {
		target, msg := l.refusal(src, ref.Value)
		if msg == "" {
			return
		}
		r := l.refusals[target]
		if r == nil {
			r = &refusal{}
			l.refusals[target] = r
		}
		r.errs = append(r.errs, &Error{Pos: src.pos(ref), Path: "$ref", Msg: fmt.Sprintf("%q %s", ref.Value, msg)})
	})
}

// refused reports whether the sandbox refuses target, a file key or a URL
// without its fragment, and the first time a refused target is needed
// records the errors at the $refs that name it.
func (l *loader) refused(target string) bool {
	r := l.refusals[target]
	if r == nil {
		return false
	}
	if !r.reported {
		r.reported = true
		l.errs = append(l.errs, r.errs...)
	}
	return true
}

// refTarget is the name the loader knows the document at u by: the file
// key for a file, the URL without its fragment for anything else.
func refTarget(u *url.URL) string {
	if u.Host == "" && (u.Scheme == "" || u.Scheme == "file") {
		return sourceKey(u.Path)
	}
	doc := *u
	doc.Fragment, doc.RawFragment = "", ""
	return doc.String()
}

// refusal returns the target of ref, found in src, and why the sandbox
// refuses it, or "" when it does not.
func (l *loader) refusal(src *source, ref string) (target, msg string) {
	file, _, _ := strings.Cut(ref, "#")
	if file == "" {
		return "", ""
	}
	u, err := url.Parse(file)
	if err != nil {
		return "", "" // kin-openapi reports the malformed reference
	}
	switch {
	case u.Scheme == "http" || u.Scheme == "https":
		if l.box.allowRemote {
			return "", ""
		}
		return refTarget(u), "names a URL: " + errRemote.Error()
	case u.Scheme != "" && u.Scheme != "file":
		return refTarget(u), fmt.Sprintf("has the URL scheme %q: a $ref names a file or, when allowed, an http or https URL", u.Scheme)
	case u.Host != "":
		return refTarget(u), "names a file on another host"
	}
	key := fileKey(src, u.Path)
	var out *errOutside
	if _, err := l.box.confine(filepath.FromSlash(key)); errors.As(err, &out) {
		return key, "names a file " + out.Error()
	}
	if t, err := l.source(key); err == nil && t.root != nil && t.root.Kind == yaml.ScalarNode {
		return key, "names a file that holds a single value, not a YAML or JSON object"
	}
	return "", ""
}

// fileKey is the key of the file a $ref in src names by the path p: p
// itself when it is absolute, as kin-openapi reads it, else p relative to
// src's directory.
func fileKey(src *source, p string) string {
	if path.IsAbs(p) {
		return sourceKey(p)
	}
	return sourceKey(path.Join(path.Dir(src.key), p))
}
