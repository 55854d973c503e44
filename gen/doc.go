// Package gen is the engine of elicitgen and elicitvet: it turns Go
// structs marked //elicit:form into MCP elicitation forms. The manual of
// the forms themselves (what a form may hold, the tags, the directives)
// is cmd/elicitgen's.
//
// # Embedding
//
// The API serves two kinds of embedder:
//
//   - a generator driver (cmd/elicitgen, the benchmarks): Generate runs
//     the whole pipeline for a Config and writes one file per package;
//     problems come back as a *DiagnosticsError, a bad Config as a
//     *ConfigError. LoadMode is what it asks of go/packages.
//   - a checker driver (the go/analysis analyzer in gen/elicitform, hence
//     cmd/elicitvet and the golangci-lint plugin): Diagnose reports, for
//     one type-checked package given as a Source, what Generate would
//     refuse or, failing that, which committed generated code is out of
//     date. Load type-checks packages as Generate does, for a driver that
//     has no analysis pass.
//
// # Pipeline
//
// The pipeline is load → model → check → emit, one file per stage:
//
//   - load.go type-checks packages with golang.org/x/tools/go/packages,
//     passing build tags through and stopping on package errors. Files
//     elicitgen wrote earlier are read as stubs of their methods, so stale
//     output never blocks its own regeneration.
//   - model.go holds the model (a form, its fields, enums and per-version
//     schemas); build.go builds it from go/types and the syntax (for doc
//     comments, directives and enum titles), with each form's
//     github.com/invopop/jsonschema Schema; schematag.go and validate.go
//     read the jsonschema and validate tags with invopop's and validator's
//     meaning. Every construct outside the subset is reported at its
//     field. The builder reads a Source (file set, files, package, type
//     info), which go/packages and go/analysis both provide, so elicitgen
//     and the analyzer share it.
//   - check.go hands the schema, as decoded JSON, to the project's one
//     subset checker (internal/subset) for the newest protocol version,
//     maps each violation back to its field, and derives the schema of
//     every older version with subset.DowngradeDropping: an optional
//     property with no equivalent is left out (Variant.Dropped), and a
//     required one marks the version unsupported; schemajson.go writes each
//     schema with a fixed key order.
//   - emit.go writes Go source with github.com/dave/jennifer: per form,
//     the schemas as string constants, a formimpl.Descriptor, a
//     formimpl.ChoicesField per run-time choices field, ElicitForm,
//     and an ElicitDecode that reads the content bytes straight into the
//     struct with formimpl.Decoder, one field reader call per property
//     (the checks live in internal/formcore, behind the runtime/formimpl
//     façade, once, not in every decoder; enum members are a switch in the
//     decoder, which is faster than any table), and guards that fail the
//     build (field names and types, enum constant values) or init (struct
//     tags) when the source changes after generation. The file opens with
//     a check of its contract version against the range runtime/formimpl
//     accepts, which elicitgen also makes before writing (contract.go).
//     Forms are rendered and gofmt'ed in parts, in parallel (render.go);
//     the output does not depend on how many CPUs did it.
//
// The schema for a struct equals what invopop's Reflector makes of it
// (with Anonymous, DoNotReference, ExpandedStruct and
// AllowAdditionalProperties, and no $schema) except for the additions
// each field records (gen/internal/oracle): doc comments as descriptions,
// enums from constants, optional pointers and fields with a default,
// validate tags and sized integer types' ranges expressed in the schema.
// The golden tests check exactly that.
//
// stale.go runs the same pipeline for Diagnose and compares the result
// with the files elicitgen wrote, so what the guards cannot catch (a new
// enum constant, an edited title or description) is reported at the form.
package gen
