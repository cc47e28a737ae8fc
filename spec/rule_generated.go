package spec

import (
	"fmt"
	"slices"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// The rules on what is not generated yet. A contract idemgen cannot
// generate code for is an error: check and generate give one verdict, and
// a contract that no code keeps must not pass review.

var rulePhasedNotGenerated = Rule{
	ID:       "IDEM020",
	Name:     "phased-not-generated",
	Severity: SeverityError,
	Summary:  "mode: phased, which is not generated yet",
	check: func(r *ruleRun) {
		if r.c == nil || r.c.Mode.Value != ModePhased {
			return
		}
		r.report(r.c.Mode.Pos, "x-idempotency.mode",
			fmt.Sprintf("mode phased is not generated yet: idemgen generates atomic operations only, so %s would get no handler, and its recovery points and lease would not exist", r.opName()),
			"use mode: atomic, or leave x-idempotency off the operation until phased mode is generated")
	},
}

var ruleWebhookNotGenerated = Rule{
	ID:       "IDEM021",
	Name:     "webhook-not-generated",
	Severity: SeverityError,
	Summary:  "x-idempotency on a webhook, whose receiver is not generated yet",
	check: func(r *ruleRun) {
		if r.c == nil || !r.op.Webhook {
			return
		}
		r.report(r.c.Pos, "x-idempotency",
			fmt.Sprintf("x-idempotency on the webhook %s (%s) is not generated yet: webhook receivers come with the inbox, so no code would keep this contract", r.op.Path, r.op.Method),
			"leave x-idempotency off webhooks until the inbox is generated")
	},
}

var ruleReplayCurrentNotGenerated = Rule{
	ID:       "IDEM022",
	Name:     "replay-current-not-generated",
	Severity: SeverityError,
	Summary:  "replay: current, which is not generated yet",
	check: func(r *ruleRun) {
		if r.c == nil || r.c.Replay.Value != ReplayCurrent {
			return
		}
		r.report(r.c.Replay.Pos, "x-idempotency.replay",
			fmt.Sprintf("replay current is not generated yet: answering a retry of %s with the resource's current state needs a read that generated code does not have, so the operation would get no handler", r.opName()),
			"use replay: stored, which answers a retry with the first response, byte for byte")
	},
}

var ruleRequestBodyNotGenerated = Rule{
	ID:       "IDEM023",
	Name:     "request-body-not-generated",
	Severity: SeverityError,
	Summary:  "a request body in no generated media type (JSON, form), or a form body that is not an object",
	check: func(r *ruleRun) {
		if r.c == nil {
			return
		}
		kind, media, content := generatedBody(r.op)
		pos := r.op.Pos
		if kind == "" && len(content) > 0 {
			pos = r.originPos(r.op.Op.RequestBody.Value.Origin, pos)
		}
		switch {
		case kind == "" && len(content) > 0:
			r.report(pos, "requestBody",
				fmt.Sprintf("the request body of %s is %s: only JSON (application/json, application/*+json) and application/x-www-form-urlencoded bodies are generated, so the operation would get no handler", r.opName(), strings.Join(content, ", ")),
				"offer the body as application/json too, or leave x-idempotency off the operation")
		case kind == mediaForm && newTypedWalk().typeOf(media.Schema).shape != shapeObject:
			r.report(r.originPos(media.Origin, pos), "requestBody",
				fmt.Sprintf("the form request body of %s is not an object with properties: only those decode from a form, so the operation would get no handler", r.opName()),
				"give the form body an object schema with properties, or offer it as application/json")
		}
	},
}

var rulePointerNotWalkable = Rule{
	ID:       "IDEM024",
	Name:     "pointer-not-walkable",
	Severity: SeverityError,
	Summary:  "a fingerprint or natural-key pointer that generated code cannot follow: into a union, a free-form or x-go-type value, or through an array other than with *",
	check: func(r *ruleRun) {
		body := requestSchema(r.op)
		if r.c == nil || body == nil {
			return // IDEM001, IDEM002
		}
		kind, media, _ := generatedBody(r.op)
		if kind == "" {
			return // IDEM023
		}
		lists := append(fingerprintLists(r.c), pointerList{"natural-key", r.c.NaturalKey})
		for _, list := range lists {
			for i, f := range list.fields {
				p, err := parsePointer(f.Value)
				if err != nil || reportedElsewhere(body, list.name, p) {
					continue
				}
				w := newTypedWalk()
				var problem string
				switch list.name {
				case "include", "natural-key":
					problem = w.selectProblem(media.Schema, p)
				default:
					problem = w.walkProblem(media.Schema, p, list.name == "exclude")
				}
				if problem == "" {
					continue
				}
				what, path := "fingerprint."+list.name, fmt.Sprintf("x-idempotency.fingerprint.%s[%d]", list.name, i)
				if list.name == "natural-key" {
					what, path = list.name, fmt.Sprintf("x-idempotency.natural-key[%d]", i)
				}
				r.report(f.Pos, path,
					fmt.Sprintf("%s %s cannot be generated: %s", what, f.Value, problem),
					"point at the value as a whole, or at every element of an array with *; a union or free-form value is significant whole or not at all")
			}
		}
	},
}

// reportedElsewhere reports whether another error rule already refuses
// the pointer p of the named list: IDEM001 and IDEM002 one the schema does
// not have, IDEM001 a * in an include pointer, and IDEM004 a natural key
// through an array. A pointer gets one error, the most specific.
func reportedElsewhere(body *openapi3.Schema, list string, p pointer) bool {
	res := resolve(body, p)
	switch {
	case res.status == lookupMissing:
		return true
	case list == "include":
		return slices.Contains(p, "*")
	case list == "natural-key":
		return res.status == lookupFound && res.optional != nil
	}
	return false
}

// originPos returns the position kin-openapi recorded for an object of the
// document, or fallback when it recorded none.
func (r *ruleRun) originPos(o *openapi3.Origin, fallback Position) Position {
	if o == nil || o.Key == nil {
		return fallback
	}
	file := o.Key.File
	if file == "" {
		file = r.doc.Path
	}
	return Position{File: file, Line: o.Key.Line, Col: o.Key.Column}
}
