// Package console is the support console: server-rendered web pages over
// the support library (runtime/idemops) to find operations and effects by
// key, operation id, scope, operation name, state and age, to read one
// operation with its answer, its effects' redacted payloads, their
// attempts, leases and audit trail, and to resolve, retry and resume what
// waits for a person, with a reason and an actor, behind a confirmation.
//
// New returns an http.Handler a service mounts behind its own
// authentication: Config.Authorize says who a request is from and what
// they may do, and without it New refuses. Reading needs RoleRead;
// actions need RoleAct. Every form carries a token bound to a cookie of
// the browser's and is refused on POST without it, or from another site
// (Origin, Sec-Fetch-Site); all text from the database reaches the page
// through html/template's escaping, under a Content-Security-Policy that
// runs no script at all. idemgen ops serve runs it stand-alone.
package console
