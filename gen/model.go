package gen

import (
	"encoding/json"
	"go/token"
	"go/types"

	"github.com/go-elicit/elicit/gen/internal/oracle"
	"github.com/invopop/jsonschema"
)

// fieldKind is what a field decodes as.
type fieldKind int

const (
	kindString fieldKind = iota + 1
	kindInt
	kindUint
	kindFloat
	kindBool
	kindEnum        // a string from a fixed set
	kindMultiSelect // []E for a string enum E
	kindTime        // time.Time, format date-time or date
)

// formModel is one struct type to generate code for.
type formModel struct {
	Name   string
	Obj    *types.TypeName
	Pos    token.Pos
	Fields []*fieldModel
	// Schema is the requestedSchema for the newest protocol version, before
	// any per-version downgrade.
	Schema *jsonschema.Schema
	// Variants are filled in by checkForms, oldest protocol first.
	Variants []schemaVariant
	// NeedsValidator is true when some validate tag is not expressed by the
	// schema, so the decoder must run the validator after decoding.
	NeedsValidator bool
	// Fingerprint covers the field names, tags and property types, so
	// generated code can notice a struct changed after generation.
	Fingerprint uint64
	// Guards are the struct types (the form and its embedded structs) whose
	// shape the generated code pins with a conversion, when nameable.
	Guards []*types.Named

	unexported []string // fields skipped for being unexported, for the no-properties message
}

// schemaVariant is the form's schema for one protocol version.
type schemaVariant struct {
	Version     string
	Schema      []byte // nil when Unsupported
	Unsupported string
	// Dropped are the optional properties Schema leaves out: the version
	// cannot carry them (contract 4).
	Dropped []string
}

// fieldModel is one property of a form.
type fieldModel struct {
	GoName string
	// Path selects the field from the form value: embedded struct names,
	// then the field name.
	Path     []string
	Pos      token.Pos
	Name     string // JSON property name
	Index    int
	Kind     fieldKind
	Type     types.Type // the field's declared type
	Pointer  bool       // *T: optional, decoded into a new T
	Bits     int        // size of integer and float types
	Enum     *enumModel // kindEnum and kindMultiSelect
	Required bool
	// NonZero is validate:"required": besides being present, the value
	// must not be the zero value (validator's meaning of required).
	NonZero bool
	// Choices is elicit:"choices": a kindString or kindMultiSelect (with
	// an empty Enum) whose options the handler gives at the call.
	Choices bool
	Schema  *jsonschema.Schema
	// Additions lists what the schema holds beyond what invopop's
	// Reflector would produce for the same field.
	Additions []oracle.Addition
	// Validate holds validate tag parts the schema does not express.
	Validate []string

	// Decoder bounds; nil when absent.
	MinLength, MaxLength *uint64
	MinItems, MaxItems   *uint64
	Minimum, Maximum     *json.Number
	Format               string
	Default              any
}

// enumModel is the member set of a string enum.
type enumModel struct {
	Type    *types.Named // nil for validate:"oneof=…" or enum tags
	Members []enumMember
}

// enumMember is one allowed value.
type enumMember struct {
	Const string // constant name in Type's package ("" for tag members)
	Value string
	Title string
}

// Titled reports whether every member has a title.
func (e *enumModel) Titled() bool {
	for _, m := range e.Members {
		if m.Title == "" {
			return false
		}
	}
	return len(e.Members) > 0
}

// Values returns the member values in order.
func (e *enumModel) Values() []string {
	vs := make([]string, len(e.Members))
	for i, m := range e.Members {
		vs[i] = m.Value
	}
	return vs
}
