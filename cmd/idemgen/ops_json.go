package main

import (
	"time"

	"github.com/idemgen/idemgen/runtime/idemops"
)

// The JSON shapes of ops output, for scripts. Keys appear as key_hash, the
// executor's log attribute, and as key only with --show-keys.

// jsonOperation is an operation in ops list.
type jsonOperation struct {
	OperationID    string     `json:"operation_id"`
	Operation      string     `json:"operation,omitempty"` // the contract name, known from the effects
	Scope          string     `json:"scope"`
	KeyHash        string     `json:"key_hash,omitempty"`
	Key            string     `json:"key,omitempty"`
	State          string     `json:"state"`
	Status         int        `json:"status,omitempty"`
	CreatedAt      *time.Time `json:"created_at,omitempty"`
	CompletedAt    *time.Time `json:"completed_at,omitempty"`
	ExpiresAt      *time.Time `json:"expires_at,omitempty"`
	EffectCount    int        `json:"effect_count"`
	EffectsWaiting int        `json:"effects_waiting"`
	// Progress is where an operation in progress after a recovery point,
	// or halted at one, stands.
	Progress *jsonProgress `json:"progress,omitempty"`
}

// jsonProgress is an operation's progress.
type jsonProgress struct {
	RecoveryPoint string     `json:"recovery_point"`
	Lease         string     `json:"lease"`                 // live, expired or halted
	LeaseUntil    *time.Time `json:"lease_until,omitempty"` // none while halted
	Attempts      int64      `json:"attempts"`
	ResumedBy     string     `json:"resumed_by,omitempty"`
}

func newJSONOperation(op *idemops.Operation) jsonOperation {
	j := jsonOperation{OperationID: op.ID, Operation: op.Name, Scope: op.Scope, KeyHash: op.KeyHash, Key: op.Key,
		State: string(op.State), Status: op.Status, CreatedAt: timePtr(op.CreatedAt), CompletedAt: timePtr(op.CompletedAt),
		ExpiresAt: timePtr(op.ExpiresAt), EffectCount: op.EffectCount, EffectsWaiting: op.EffectsWaiting}
	if p := op.Progress; p != nil {
		j.Progress = &jsonProgress{RecoveryPoint: p.RecoveryPoint, Lease: string(p.Lease), LeaseUntil: timePtr(p.LeaseUntil),
			Attempts: p.Attempts, ResumedBy: p.ResumedBy}
	}
	return j
}

// jsonEffect is an effect in ops list.
type jsonEffect struct {
	EffectKey   string     `json:"effect_key"`
	OperationID string     `json:"operation_id"`
	Operation   string     `json:"operation"`
	Scope       string     `json:"scope"`
	KeyHash     string     `json:"key_hash,omitempty"`
	Key         string     `json:"key,omitempty"`
	Effect      string     `json:"effect"`
	Seq         int        `json:"seq"`
	OnUnknown   string     `json:"on_unknown"`
	State       string     `json:"state"`
	Attempts    int        `json:"attempts"`
	LastOutcome string     `json:"last_outcome,omitempty"`
	LastError   string     `json:"last_error,omitempty"`
	LeasedBy    string     `json:"leased_by,omitempty"` // with lease_until, while a lease is recorded
	LeaseUntil  *time.Time `json:"lease_until,omitempty"`
	CreatedAt   time.Time  `json:"created_at"`
	DueAt       time.Time  `json:"due_at"`
	Payload     string     `json:"payload,omitempty"` // redacted, in ops show
}

func newJSONEffect(e *idemops.Effect) jsonEffect {
	j := jsonEffect{EffectKey: e.Key, OperationID: e.OperationID, Operation: e.Operation, Scope: e.Scope, KeyHash: e.KeyHash,
		Key: e.IdempotencyKey, Effect: e.Name, Seq: e.Seq, OnUnknown: e.OnUnknown, State: string(e.State), Attempts: e.Attempts,
		LastOutcome: e.LastOutcome, LastError: e.LastError, CreatedAt: e.CreatedAt, DueAt: e.DueAt, Payload: e.Payload}
	if !e.LeaseUntil.IsZero() {
		j.LeasedBy, j.LeaseUntil = e.LeasedBy, timePtr(e.LeaseUntil)
	}
	return j
}

// jsonList is ops list's output.
type jsonList struct {
	Operations []jsonOperation `json:"operations"`
	Effects    []jsonEffect    `json:"effects"`
}

// jsonOperationDetail is ops show's output.
type jsonOperationDetail struct {
	jsonOperation
	// Request is the redacted request a phased operation keeps until it
	// is decided.
	Request *jsonRequest       `json:"request,omitempty"`
	Audit   []jsonAudit        `json:"audit"` // support's actions on the operation itself
	Effects []jsonEffectDetail `json:"effects"`
}

// jsonRequest is an operation's stored request, redacted.
type jsonRequest struct {
	Method     string              `json:"method"`
	Route      string              `json:"route"`
	PathParams map[string]string   `json:"path_params,omitempty"`
	Query      map[string][]string `json:"query,omitempty"`
	Header     map[string][]string `json:"header,omitempty"`
	Body       string              `json:"body,omitempty"`
}

// jsonEffectDetail is an effect with its history.
type jsonEffectDetail struct {
	jsonEffect
	History []jsonAttempt `json:"attempt_history"`
	Audit   []jsonAudit   `json:"audit"`
}

// jsonAttempt is one attempt of an effect.
type jsonAttempt struct {
	Attempt    int        `json:"attempt"`
	Token      int64      `json:"fencing_token"`
	Worker     string     `json:"worker"`
	Kind       string     `json:"kind,omitempty"`
	StartedAt  time.Time  `json:"started_at"`
	FinishedAt *time.Time `json:"finished_at,omitempty"`
	Outcome    string     `json:"outcome,omitempty"` // "" while it runs
	Error      string     `json:"error,omitempty"`
}

// jsonAudit is one support action on an effect or an operation.
type jsonAudit struct {
	ID int64 `json:"id"`
	// On, EffectKey and OperationID say what the action was on, in ops
	// audit, where it is not otherwise known: an effect (with its key) or
	// an operation (with its id).
	On          string    `json:"on,omitempty"`
	EffectKey   string    `json:"effect_key,omitempty"`
	OperationID string    `json:"operation_id,omitempty"`
	At          time.Time `json:"at"`
	Actor       string    `json:"actor"`
	From        string    `json:"from"`
	To          string    `json:"to"`
	Reason      string    `json:"reason"`
}

func newJSONAudit(a *idemops.AuditEntry, withKey bool) jsonAudit {
	j := jsonAudit{ID: a.ID, At: a.At, Actor: a.Actor, From: string(a.From), To: string(a.To), Reason: a.Reason}
	if withKey {
		j.On, j.EffectKey = "effect", a.EffectKey
	}
	return j
}

func newJSONOperationAudit(a *idemops.OperationAuditEntry, withID bool) jsonAudit {
	j := jsonAudit{ID: a.ID, At: a.At, Actor: a.Actor, From: string(a.From), To: string(a.To), Reason: a.Reason}
	if withID {
		j.On, j.OperationID = "operation", a.OperationID
	}
	return j
}

func newJSONOperationDetail(op *idemops.Operation) jsonOperationDetail {
	d := jsonOperationDetail{jsonOperation: newJSONOperation(op), Audit: []jsonAudit{}, Effects: []jsonEffectDetail{}}
	if r := op.Request; r != nil {
		d.Request = &jsonRequest{Method: r.Method, Route: r.Route, PathParams: r.PathParams, Query: r.Query, Header: r.Header, Body: r.Body}
	}
	for i := range op.Audit {
		d.Audit = append(d.Audit, newJSONOperationAudit(&op.Audit[i], false))
	}
	for i := range op.Effects {
		e := &op.Effects[i]
		ed := jsonEffectDetail{jsonEffect: newJSONEffect(e), History: []jsonAttempt{}, Audit: []jsonAudit{}}
		for _, a := range e.History {
			ed.History = append(ed.History, jsonAttempt{Attempt: a.Number, Token: a.FencingToken, Worker: a.Worker, Kind: a.Kind,
				StartedAt: a.StartedAt, FinishedAt: timePtr(a.FinishedAt), Outcome: a.Outcome, Error: a.Error})
		}
		for j := range e.Audit {
			ed.Audit = append(ed.Audit, newJSONAudit(&e.Audit[j], false))
		}
		d.Effects = append(d.Effects, ed)
	}
	return d
}
