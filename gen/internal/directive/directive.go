// Package directive spells the comments that mark forms, for everything
// that looks for them: the generator, its loader and the vet analyzer's
// go vet fallback. Every directive is "//" + Prefix + ":" + name; the prefix
// lives in one place so a rename is one edit.
package directive

import "strings"

const (
	// Prefix is the tool part of every elicit directive.
	Prefix = "elicit"
	// Form marks a struct type as a form: //elicit:form
	Form = "form"
	// AllowCredential, on a field, accepts a property that looks like a
	// credential: //elicit:allow-credential <reason>
	AllowCredential = "allow-credential"
)

// FormComment is the comment that marks a form.
const FormComment = "//" + Prefix + ":" + Form

// MissingFormMethod reports a type error that only says a form lacks the
// methods elicitgen generates: code calling runtime.Elicit[T] before the
// first go generate, or on a form just added. The form structs themselves
// still type-check, which is all the model needs, so the generator's loader
// lets these errors pass, and so does elicitvet's go vet fallback. The
// same holds for the name of a run-time choices field (CommitForm_Files)
// that elicitgen has not declared yet: "undefined: CommitForm_Files".
func MissingFormMethod(msg string) bool {
	if strings.Contains(msg, "(missing method ElicitForm)") || strings.Contains(msg, "(missing method ElicitDecode)") {
		return true
	}
	_, name, ok := strings.Cut(msg, "undefined: ")
	return ok && strings.Contains(name, "_") && !strings.ContainsAny(name, ". \t")
}
