// Package otelsdk has no code of its own: its test reads runtime/idemotel's
// instruments back through the OpenTelemetry SDK's manual reader. It is in
// the interop module so that the SDK, which only this test needs, is not a
// requirement of idemgen's module and so of every service that imports it.
package otelsdk
