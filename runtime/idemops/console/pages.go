package console

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/idemgen/idemgen/runtime/idemops"
)

// search lists the operations and effects that match the query's
// filters: key (either form), operation_id, scope, operation, state,
// link (the created resource's) and older_than (a Go duration such as 1h).
func (c *console) search(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	f := idemops.Filter{Key: q.Get("key"), OperationID: strings.TrimSpace(q.Get("operation_id")), Scope: q.Get("scope"),
		Name: q.Get("operation"), Link: strings.TrimSpace(q.Get("link"))}
	state := q.Get("state")
	data := map[string]any{"Prefix": c.cfg.Prefix, "Q": q, "States": states()}
	if age := q.Get("older_than"); age != "" {
		d, err := time.ParseDuration(age)
		if err != nil {
			data["Error"] = "older than " + age + ": want a duration such as 30m or 2h"
			c.render(w, "search.html", data)
			return
		}
		f.OlderThan = d
	}
	listOps := state == "" || slices.Contains(idemops.OperationStates(), idemops.OperationState(state))
	listEffects := state == "" || slices.Contains(idemops.EffectStates(), idemops.EffectState(state))
	var err error
	if listOps {
		data["Operations"], err = c.cfg.Ops.ListOperations(r.Context(), idemops.OperationFilter{Filter: f, State: idemops.OperationState(state)})
	}
	if err == nil && listEffects {
		data["Effects"], err = c.cfg.Ops.ListEffects(r.Context(), idemops.EffectFilter{Filter: f, State: idemops.EffectState(state)})
	}
	if !listOps && !listEffects {
		err = errors.New("state " + state + " is neither an operation's nor an effect's")
	}
	if err != nil {
		w.WriteHeader(status(err))
		data["Error"] = strings.TrimPrefix(err.Error(), "idemops: ")
	}
	c.render(w, "search.html", data)
}

// operation shows one operation with its answer, its effects and their
// history, and support's actions, with the forms of the actions the
// viewer may take.
func (c *console) operation(w http.ResponseWriter, r *http.Request) {
	op, err := c.cfg.Ops.Operation(r.Context(), r.PathValue("id"))
	if err != nil {
		c.refuse(w, status(err), strings.TrimPrefix(err.Error(), "idemops: "))
		return
	}
	p := principal(r)
	c.render(w, "operation.html", map[string]any{"Prefix": c.cfg.Prefix, "Op": op, "CanAct": p.Role >= RoleAct,
		"Actor": p.Name, "CSRF": c.csrfToken(w, r), "Resumable": op.State == idemops.OperationRequiresRecovery && op.Progress != nil,
		"Resolvable": op.State == idemops.OperationRequiresRecovery})
}

// maxForm bounds an action form's body: a reason and an actor, which the
// library bounds far below it, the names of what is acted on, and an
// operation's resolution (a larger answer: idemgen ops resolve
// --body-file).
const maxForm = 64 << 10

// actions are what the action form asks for: its label on the
// confirmation page.
var actions = map[string]string{
	"resolve-done":      "Resolve the effect as done (it happened)",
	"resolve-failed":    "Resolve the effect as failed (it did not and will not)",
	"retry":             "Retry the effect: the worker calls the provider again under the same effect key",
	"resume":            "Resume the operation from its last recovery point: the unknown call is made again with the same step key",
	"resolve-completed": "Resolve the operation as completed: it is not run again, and every retry receives the answer below",
	"resolve-refused":   "Resolve the operation as failed: it is not run again, and every retry receives the problem below",
}

// resolutionFields are the form fields of an operation's resolution, in
// the order the confirmation shows them: the answer's or the problem's.
var resolutionFields = map[string][]string{
	"resolve-completed": {"status", "content_type", "body"},
	"resolve-refused":   {"status", "title", "detail"},
}

// resolution reads an operation's resolution from the form of kind.
func resolution(kind string, r *http.Request) (idemops.Resolution, error) {
	code, err := strconv.Atoi(strings.TrimSpace(r.PostFormValue("status")))
	if err != nil {
		return idemops.Resolution{}, fmt.Errorf("status %q: want an HTTP status such as 201", r.PostFormValue("status"))
	}
	if kind == "resolve-completed" {
		return idemops.Resolution{To: idemops.OperationCompleted, Answer: idemops.Answer{Status: code,
			ContentType: strings.TrimSpace(r.PostFormValue("content_type")), Body: []byte(r.PostFormValue("body"))}}, nil
	}
	return idemops.Resolution{To: idemops.OperationFailed, Problem: idemops.Problem{Status: code,
		Title: r.PostFormValue("title"), Detail: r.PostFormValue("detail")}}, nil
}

// action takes a support action: the first POST shows what it will do
// and asks to confirm; the confirmed one does it and returns to the
// operation, whose audit trail then shows it.
func (c *console) action(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, maxForm)
	p := principal(r)
	if p.Role < RoleAct {
		c.refuse(w, http.StatusForbidden, "Actions need the act role; you may only read.")
		return
	}
	if why := c.crossSite(r); why != "" {
		c.refuse(w, http.StatusForbidden, "Refused a cross-site request: "+why+".")
		return
	}
	kind, target, opID := r.PostFormValue("action"), r.PostFormValue("target"), r.PostFormValue("operation")
	a := idemops.Action{Actor: p.Name, Reason: r.PostFormValue("reason")}
	if a.Actor == "" {
		a.Actor = r.PostFormValue("actor")
	}
	label, ok := actions[kind]
	if !ok || target == "" || opID == "" {
		c.refuse(w, http.StatusBadRequest, "The form names no action or nothing to act on.")
		return
	}
	if strings.TrimSpace(a.Reason) == "" || strings.TrimSpace(a.Actor) == "" {
		c.refuse(w, http.StatusBadRequest, "An action needs a reason and an actor: both go to the audit table.")
		return
	}
	var res idemops.Resolution
	var fields [][2]string
	if names, ok := resolutionFields[kind]; ok {
		var err error
		if res, err = resolution(kind, r); err != nil {
			c.refuse(w, http.StatusBadRequest, err.Error())
			return
		}
		for _, n := range names {
			fields = append(fields, [2]string{n, r.PostFormValue(n)})
		}
	}
	if r.PostFormValue("confirm") != "yes" {
		c.render(w, "confirm.html", map[string]any{"Prefix": c.cfg.Prefix, "Label": label, "Action": kind, "Target": target,
			"Operation": opID, "Reason": a.Reason, "Actor": a.Actor, "CSRF": c.csrfToken(w, r), "Fields": fields})
		return
	}
	var err error
	switch kind {
	case "resolve-completed", "resolve-refused":
		_, err = c.cfg.Ops.ResolveOperation(r.Context(), target, res, a)
	case "resolve-done":
		_, err = c.cfg.Ops.Resolve(r.Context(), target, idemops.EffectDone, a)
	case "resolve-failed":
		_, err = c.cfg.Ops.Resolve(r.Context(), target, idemops.EffectFailed, a)
	case "retry":
		_, err = c.cfg.Ops.Retry(r.Context(), target, a)
	case "resume":
		_, err = c.cfg.Ops.Resume(r.Context(), target, a)
	}
	if err != nil {
		c.refuse(w, status(err), strings.TrimPrefix(err.Error(), "idemops: "))
		return
	}
	http.Redirect(w, r, c.cfg.Prefix+"/operations/"+url.PathEscape(opID)+"#audit", http.StatusSeeOther)
}

// states are the states to search by: an operation's, then an effect's
// (failed and requires_recovery are both).
func states() []string {
	var all []string
	for _, s := range idemops.OperationStates() {
		all = append(all, string(s))
	}
	for _, s := range idemops.EffectStates() {
		if !slices.Contains(all, string(s)) {
			all = append(all, string(s))
		}
	}
	return all
}

// status is the HTTP status of a library error.
func status(err error) int {
	switch {
	case errors.Is(err, idemops.ErrNotFound):
		return http.StatusNotFound
	case errors.Is(err, idemops.ErrWrongState):
		return http.StatusConflict
	case errors.Is(err, idemops.ErrInvalid):
		return http.StatusBadRequest
	}
	return http.StatusInternalServerError
}
