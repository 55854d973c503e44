package formcore

import (
	"errors"
	"reflect"
	"strconv"
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

// validate runs the shared validator on v (a pointer to a form struct) and
// records a problem for each failing property that has none yet: the
// decoder's own checks come first and say more.
func (d *Decoder) validate(v any) {
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
		if d.failed(fe.Field()) {
			continue
		}
		d.Problem(fe.Field(), validationMessage(fe.Tag(), fe.Param(), fe.Kind()))
	}
}

// ValidateVar runs the shared validator on one property's value with the
// validate tag parts the schema does not express, unless the property
// already has a problem.
func (d *Decoder) ValidateVar(property string, value any, tag string) {
	if d.fatal || d.failed(property) {
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
		d.Problem(property, validationMessage(fe.Tag(), fe.Param(), fe.Kind()))
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
		d.Problem(fe.Field(), validationMessage(fe.Tag(), fe.Param(), fe.Kind()))
	}
	return d.Err()
}

// validationMessage words a failed validate tag like the decoder's messages.
// The size tags count what the value's kind has: a string's characters, a
// slice's or map's items, a number itself.
func validationMessage(tag, param string, kind reflect.Kind) string {
	if msg, ok := sizeMessage(tag, param, kind); ok {
		return msg
	}
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

// sizeMessage words min, max, len, gt, gte, lt and lte on a string (in
// characters, as validator counts runes) or a slice, array or map (in
// items), as the decoder words minLength and minItems.
func sizeMessage(tag, param string, kind reflect.Kind) (string, bool) {
	var unit, verb string
	switch kind {
	case reflect.String:
		unit, verb = "character", "be"
	case reflect.Slice, reflect.Array, reflect.Map:
		unit, verb = "item", "have"
	default:
		return "", false
	}
	n, err := strconv.Atoi(param)
	if err != nil || n < 0 {
		return "", false
	}
	count := plural(n, unit)
	switch tag {
	case "min", "gte":
		return "must " + verb + " at least " + count, true
	case "max", "lte":
		return "must " + verb + " at most " + count, true
	case "len", "eq":
		return "must " + verb + " exactly " + count, true
	case "gt":
		return "must " + verb + " more than " + count, true
	case "lt":
		return "must " + verb + " fewer than " + count, true
	}
	return "", false
}
