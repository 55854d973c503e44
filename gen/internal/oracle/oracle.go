// Package oracle names the differences the generator may make from
// invopop's Reflector on purpose. The model records each one on its field;
// the golden tests (gen/internal/goldencheck) compare every generated
// schema with invopop's and accept exactly these.
package oracle

// Addition names one schema keyword that differs from invopop's reflection
// on purpose, and why.
type Addition struct {
	Property string
	Keyword  string
	Reason   string
}

// Reasons for additions, named so the oracle test can list them.
const (
	ReasonDocComment      = "doc comment becomes description"
	ReasonEnumConstants   = "named string type with constants becomes an enum"
	ReasonPointerOptional = "pointer field is optional"
	ReasonValidateTag     = "validate tag expressed in the schema"
	ReasonIntRange        = "integer type's range expressed in the schema"
	ReasonDefaultOptional = "field with a default is optional"
	ReasonBoolDefault     = "boolean with no default defaults to false, so a checkbox can be answered no"
)

// Reasons lists every reason, for the oracle's check that an addition
// names one of them.
var Reasons = []string{
	ReasonDocComment,
	ReasonEnumConstants,
	ReasonPointerOptional,
	ReasonValidateTag,
	ReasonIntRange,
	ReasonDefaultOptional,
	ReasonBoolDefault,
}
