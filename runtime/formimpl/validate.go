package formimpl

import (
	"errors"
	"reflect"
	"strings"
	"sync"

	"github.com/go-playground/validator/v10"
)

var (
	validateOnce sync.Once
	validate     *validator.Validate
)

// Validator returns the one validator.Validate that generated code uses for
// the validate tags a form's schema cannot express. It names fields by their
// JSON property, so problems read like the schema's.
func Validator() *validator.Validate {
	validateOnce.Do(func() {
		validate = validator.New(validator.WithRequiredStructEnabled())
		validate.RegisterTagNameFunc(JSONName)
	})
	return validate
}

// JSONName returns the JSON property name of a struct field as
// encoding/json names it: the json tag's name, the Go name when the tag has
// none, and "" for a field the tag skips ("-").
func JSONName(f reflect.StructField) string {
	tag := f.Tag.Get("json")
	name, _, _ := strings.Cut(tag, ",")
	switch name {
	case "-":
		if tag == "-" {
			return ""
		}
	case "":
		return f.Name
	}
	return name
}

// Validate runs the shared validator on v (a pointer to a form struct) and
// records a problem for each failing property that has none yet: the
// decoder's own checks come first and say more.
func (d *Decoder) Validate(v any) {
	err := Validator().Struct(v)
	if err == nil {
		return
	}
	var verrs validator.ValidationErrors
	if !errors.As(err, &verrs) {
		d.Problem("", "cannot be validated: "+err.Error())
		return
	}
	for _, fe := range verrs {
		if d.Failed(fe.Field()) {
			continue
		}
		d.Problem(fe.Field(), validationMessage(fe.Tag(), fe.Param()))
	}
}

// ValidateVar runs the shared validator on one property's value with the
// validate tag parts the schema does not express, unless the property
// already has a problem.
func (d *Decoder) ValidateVar(property string, value any, tag string) {
	if d.fatal || d.Failed(property) {
		return
	}
	err := Validator().Var(value, tag)
	if err == nil {
		return
	}
	var verrs validator.ValidationErrors
	if !errors.As(err, &verrs) {
		d.Problem(property, "cannot be validated: "+err.Error())
		return
	}
	for _, fe := range verrs {
		d.Problem(property, validationMessage(fe.Tag(), fe.Param()))
	}
}

// ValidationProblems turns validator.ValidationErrors into a *ContentError
// (nil for a nil err), for code that validates outside a Decoder.
func ValidationProblems(err error) error {
	if err == nil {
		return nil
	}
	var d Decoder
	var verrs validator.ValidationErrors
	if !errors.As(err, &verrs) {
		return err
	}
	for _, fe := range verrs {
		d.Problem(fe.Field(), validationMessage(fe.Tag(), fe.Param()))
	}
	return d.Err()
}

// validationMessage words a failed validate tag like the decoder's messages.
func validationMessage(tag, param string) string {
	switch tag {
	case "required":
		return "is required"
	case "min", "gte":
		return "must be at least " + param
	case "max", "lte":
		return "must be at most " + param
	case "gt":
		return "must be greater than " + param
	case "lt":
		return "must be less than " + param
	case "len":
		return "must have length " + param
	case "eq":
		return "must equal " + param
	case "ne":
		return "must not equal " + param
	case "oneof":
		return "must be one of " + param
	case "email":
		return "must be an email address"
	case "url", "uri", "http_url":
		return "must be a URL"
	case "ip":
		return "must be an IP address"
	case "ipv4":
		return "must be an IPv4 address"
	case "ipv6":
		return "must be an IPv6 address"
	case "cidr":
		return "must be a CIDR prefix"
	case "hostname", "hostname_rfc1123", "fqdn":
		return "must be a host name"
	case "alpha":
		return "must contain only letters"
	case "alphanum":
		return "must contain only letters and digits"
	case "numeric", "number":
		return "must be numeric"
	case "lowercase":
		return "must be lowercase"
	case "uppercase":
		return "must be uppercase"
	case "uuid", "uuid4":
		return "must be a UUID"
	case "datetime":
		return "must be a time in the layout " + param
	}
	if param != "" {
		return "fails the " + tag + "=" + param + " check"
	}
	return "fails the " + tag + " check"
}
