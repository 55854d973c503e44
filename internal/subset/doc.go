// Package subset is the one checker of the JSON Schema subset that MCP form
// elicitation allows, shared by the code generator (elicitgen), the go vet
// analyzer (elicitvet) and the runtime (ElicitSchema with a hand-built
// schema, and the validation of every accepted answer). Having one checker
// means a schema the generator accepts is exactly a schema the runtime sends,
// and a diagnostic reads the same in every tool.
//
// # An allowlist, per protocol version
//
// Check accepts only what the spec's schema.ts for the given protocol version
// defines for ElicitRequestFormParams.requestedSchema; every other key is a
// violation. The root is {type: "object", properties, required?} plus
// $schema? from 2025-11-25 on. A property is one of:
//
//	kind                 keys                                                        since
//	string               type, title, description, minLength, maxLength, format      2025-06-18
//	                     default (string)                                            2025-11-25
//	number / integer     type, title, description, minimum, maximum                  2025-06-18
//	                     default (number)                                            2025-11-25
//	boolean              type, title, description, default (boolean)                 2025-06-18
//	enum                 type "string", title, description, enum, enumNames          2025-06-18
//	                     default (a member)                                          2025-11-25
//	titled single-select type "string", title, description, oneOf [{const, title}],  2025-11-25
//	                     default
//	multi-select         type "array", title, description, minItems, maxItems,       2025-11-25
//	                     items {type "string", enum} or items {anyOf [{const, title}]},
//	                     default (list of members)
//
// Formats are "email", "uri", "date" and "date-time". 2026-07-28 allows exactly
// what 2025-11-25 allows; 2025-03-26 has no elicitation at all. Nothing nests:
// no $ref, no pattern, no anyOf/allOf at property level, no nullable type
// lists such as ["string", "null"] (leave the property out of "required"
// instead), no objects.
//
// Beyond the keys, values are checked: lengths and item counts are
// non-negative integers, lower bounds do not exceed upper bounds, enum members
// and const values are non-empty unique strings, enumNames matches enum in
// length, every name in "required" is a property, and a default fits its
// property (type, integral for integer, bounds, length, format, membership).
// An empty "properties" is a violation too: it would show the user a form with
// nothing to fill in.
//
// A Violation carries a JSON Pointer into the schema, the property it
// concerns, and a lowercase message; when the construct is valid in a later
// protocol version, Feature and Since say which feature and from when, so a
// caller can suggest raising the version or let Downgrade rewrite the schema.
// Violations come sorted by path, all of them, not just the first.
//
// # Downgrade
//
// Downgrade rewrites a schema written for 2025-11-25 for an older version:
// titled single-selects become enum + enumNames on 2025-06-18, and defaults
// the older version lacks are dropped. Dropping a default is safe because a
// default is only a hint for pre-filling the form: the client answers with
// every value anyway and the server validates the answer. Multi-select has
// no 2025-06-18 equivalent, so Downgrade reports it instead.
//
// # Content
//
// ValidateContent checks the content of an accepted answer against a schema
// that passed Check: unknown keys, missing required properties, JSON types,
// membership, lengths counted in Unicode code points, bounds, formats and item
// counts, one message per failing property. CheckFormat, ParseDate and
// ParseDateTime are the format checks on their own; CheckFormat does not
// allocate when the value is valid, so generated decoders call it directly.
//
// # Secrets
//
// Form mode must not ask for passwords, API keys, tokens or payment data.
// Credential recognises property names and titles that look like such a
// request ("apiKey", "Card number", "client_secret", "github_pat") without
// flagging ordinary words that merely contain one ("tokenizer", "pinned",
// "keyboard") or names about a secret rather than of one ("secret_name",
// "pin_version", "max_tokens"). CredentialProperty adds the description
// and weighs the property's type: booleans, choices and multi-selects are
// never credentials, numbers only PINs, card numbers and codes. Its
// precision and recall are measured on a corpus of real property names in
// testdata/credentials.txt.
//
// # Inputs
//
// Schemas are decoded JSON: map[string]any, []any, string, float64 or
// json.Number, bool and nil. Because the runtime also checks schemas written
// by hand in Go, []string, []map[string]any and Go integer and float types are
// accepted wherever JSON would have an array or a number.
package subset
