package emit

// The import paths generated code refers to.
const (
	idemImport        = "github.com/idemgen/idemgen/runtime/idem"
	idemimplImport    = "github.com/idemgen/idemgen/runtime/idemimpl"
	idemtestImport    = "github.com/idemgen/idemgen/runtime/idemtest"
	fingerprintImport = "github.com/idemgen/idemgen/runtime/fingerprint"
	formImport        = "github.com/idemgen/idemgen/runtime/form"
	jsondecodeImport  = "github.com/idemgen/idemgen/runtime/jsondecode"
	mathImport        = "math"
	regexpImport      = "regexp"
	pgxImport         = "github.com/jackc/pgx/v5"
	contextImport     = "context"
	errorsImport      = "errors"
	fmtImport         = "fmt"
	httpImport        = "net/http"
	jsonImport        = "encoding/json"
	stringsImport     = "strings"
	testingImport     = "testing"
	timeImport        = "time"
	urlImport         = "net/url"
)
