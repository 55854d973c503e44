// Package gen is elicitgen and elicitvet's engine: it turns Go structs
// marked //elicit:form into MCP elicitation forms.
//
// The pipeline is load → model → check → emit:
//
//   - Load type-checks packages with golang.org/x/tools/go/packages,
//     passing build tags through and stopping on package errors. Files
//     elicitgen wrote earlier are read as stubs of their methods, so stale
//     output never blocks its own regeneration.
//   - Build walks go/types and the syntax (for doc comments, directives and
//     enum titles) and builds each form's github.com/invopop/jsonschema
//     Schema with invopop's meaning of tags, reporting every construct
//     outside the subset at its field. It takes a Source (file set, files,
//     package, type info), which go/packages and go/analysis both provide,
//     so elicitgen and the vet analyzer (package gen/vet) share it.
//   - Check hands the schema, as decoded JSON, to the project's one subset
//     checker (internal/subset) for the newest protocol version, maps each
//     violation back to its field, and derives the schema of every older
//     version with subset.Downgrade, marking a version unsupported when no
//     equivalent exists.
//   - Emit writes Go source with github.com/dave/jennifer: per form, the
//     schemas as string constants, a formimpl.Descriptor, ElicitForm, and an
//     ElicitDecode that reads the content bytes straight into the struct
//     with formimpl.Decoder, one field reader call per property (the checks
//     live in internal/formcore, behind the runtime/formimpl façade, once,
//     not in every decoder; enum members are a switch in the decoder, which
//     is faster than any table), and guards that fail the build (field
//     names and types, enum constant values) or init (struct tags) when the
//     source changes after generation. The file opens with a check of its
//     contract version against the range runtime/formimpl accepts, which
//     elicitgen also makes before writing (contract.go). Forms are rendered
//     and gofmt'ed in parts, in parallel; the output does not depend on how
//     many CPUs did it.
//
// Main is the command line; see cmd/elicitgen for the manual. The schema
// for a struct equals what invopop's Reflector makes of it (with
// Anonymous, DoNotReference, ExpandedStruct and AllowAdditionalProperties,
// and no $schema) except for the Additions each Field lists: doc comments
// as descriptions, enums from constants, optional pointers and fields
// with a default, validate tags and sized integer types' ranges expressed
// in the schema. The golden
// tests check exactly that.
//
// Stale runs the same pipeline for the vet analyzer and compares the
// result with the files elicitgen wrote, so what the guards cannot catch
// (a new enum constant, an edited title or description) is reported at
// the form.
package gen
