package idem

import "github.com/idemgen/idemgen/runtime/internal/httpapi"

// StoredAnswer is the first answer of a completed operation as a replay
// under replay: current hands it to the operation's generated Current
// method: the operation id, the stored status, headers (Location among
// them when the answer kept it) and body, from which the service finds
// what the operation created and answers its current representation. The
// record keeps it unchanged, for support (idemgen ops show).
type StoredAnswer = httpapi.StoredAnswer
