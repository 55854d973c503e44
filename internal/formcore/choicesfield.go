package formcore

// ChoicesField names one run-time choices field of a form (a field tagged
// elicit:"choices"): the form's descriptor and the field's property.
// Generated code declares one per such field (contract 5), so that a
// call's choices name their field with an identifier the compiler checks.
// The zero ChoicesField names no field.
type ChoicesField struct {
	form     *Descriptor
	property string
}

// NewChoicesField is the ChoicesField of property of the form described
// by form.
func NewChoicesField(form *Descriptor, property string) ChoicesField {
	return ChoicesField{form: form, property: property}
}

// Form is the descriptor of the form the field belongs to (nil for the
// zero ChoicesField).
func (f ChoicesField) Form() *Descriptor { return f.form }

// Property is the field's JSON property name, e.g. "files".
func (f ChoicesField) Property() string { return f.property }
