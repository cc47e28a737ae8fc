package idem

// Rejection is a business refusal, such as an order for an item out of
// stock. Returned by a business method (as an error, possibly wrapped) it
// answers with an RFC 9457 problem of that status; the business changes
// are rolled back, and the answer is stored and replayed when the status
// matches the contract's store-failures (by default every 4xx). Otherwise
// the key is freed and a retry runs again.
type Rejection struct {
	Status int // 4xx or 5xx
	// Type is a URI that identifies the kind of problem; "" means
	// about:blank.
	Type   string
	Title  string
	Detail string
}

// Error describes the rejection.
func (r *Rejection) Error() string {
	if r.Detail != "" {
		return "idem: rejected: " + r.Title + ": " + r.Detail
	}
	return "idem: rejected: " + r.Title
}
