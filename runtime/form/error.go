package form

// Error is a form body that does not fit the type it is decoded into, or a
// key that cannot be parsed. Key is the key as a client writes it, such as
// items[0][qty]; empty for the form as a whole.
type Error struct {
	Key string
	Msg string
}

// Error formats the error as "form: key: message".
func (e *Error) Error() string {
	if e.Key == "" {
		return "form: " + e.Msg
	}
	return "form: " + e.Key + ": " + e.Msg
}
