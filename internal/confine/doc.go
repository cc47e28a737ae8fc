// Package confine tells whether a path, symbolic links resolved, stays
// inside a directory: the check behind every file idemgen reads for a
// spec's $refs (package spec's sandbox) and writes for generate (package
// generator). It is a leaf: it imports only the standard library, and
// nothing of idemgen's.
package confine
