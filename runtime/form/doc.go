// Package form is the runtime stage that reads
// application/x-www-form-urlencoded request bodies with bracketed nested
// keys, as Stripe's API and its clients write them:
//
//	amount=2000&metadata[order]=42&items[0][sku]=A&items[0][qty]=1&expand[]=customer
//
// [Parse] turns the url.Values into a tree of [Node]s whose leaves are
// strings. [Node.Get], [Node.Elems] and [Members] walk it; the typed
// accessors ([String], [Int64], [Bool], [Time], [Raw], …) convert a leaf or
// subtree into a Go value. Failures are an [*Error] that names the key as
// written, such as items[0][qty].
//
// Generated code is glue over this package: a generated struct's DecodeForm
// method walks its fields with these calls, so the bracket algorithm lives
// once, in this package, and is tested here. The glue is plain code rather
// than calls to generic combinators on purpose: a generic function
// instantiated for each of Stripe's 1,500 request structs made the
// generated package take half a minute and 850 MB to compile.
//
// Keys: a name followed by any number of [segment]s. A segment of decimal
// digits addresses an array element (sparse indexes keep their order); an
// empty segment, allowed only last (expand[]), appends its values, exactly
// as repeating the key does. Keys that do not fit this shape, or that nest
// deeper than 32 levels, are errors.
//
// multipart/form-data bodies (RFC 7578) read the same way: [ParseMultipart]
// makes the same tree of the text parts, and holds each part with a
// filename as a [File] under its name, which [Upload] reads. A File is
// fingerprinted, and encoded as JSON, by its SHA-256 [File.Digest].
//
// This package imports only the standard library; it must not import other
// idemgen packages.
package form
