package gen

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/go-elicit/elicit/gen/internal/directive"
	"github.com/go-elicit/elicit/gen/internal/oracle"
	"github.com/go-elicit/elicit/internal/formcore"
	"github.com/go-elicit/elicit/internal/subset"
)

// validateTag maps the parts of a validate tag that the schema can express
// to schema keywords (the decoder then enforces them) and keeps the rest for
// the validator, which runs on the server after decoding.
func (b *builder) validateTag(f *fieldModel, tag string) {
	if tag == "" {
		return
	}
	parts := strings.Split(tag, ",")
	for _, p := range parts {
		key, _, _ := strings.Cut(p, "=")
		if crossField(key) {
			b.errorf(f.Pos, "field %s: validate tag %q compares fields or depends on other fields; forms decode one property at a time, so check it in the handler", f.GoName, key)
			return
		}
	}
	for _, p := range parts {
		if p == "omitempty" || p == "dive" || strings.Contains(p, "|") {
			// Conditional validation cannot become schema keywords; the
			// validator checks the whole tag.
			b.checkValidatorTag(f, tag)
			f.Validate = append(f.Validate, tag)
			return
		}
	}
	var rest []string
	for _, p := range parts {
		if !b.validatePart(f, p) {
			rest = append(rest, p)
		}
	}
	if len(rest) > 0 {
		joined := strings.Join(rest, ",")
		b.checkValidatorTag(f, joined)
		f.Validate = append(f.Validate, joined)
	}
}

// validatePart expresses one validate tag part in the schema and reports
// whether it did.
func (b *builder) validatePart(f *fieldModel, p string) bool {
	key, param, _ := strings.Cut(p, "=")
	s := f.Schema
	add := func(keyword string) {
		f.Additions = append(f.Additions, oracle.Addition{Property: f.Name, Keyword: keyword, Reason: oracle.ReasonValidateTag})
	}
	switch key {
	case "required":
		if param != "" {
			return false
		}
		if !f.Pointer && (f.Kind == kindBool || f.Kind == kindInt || f.Kind == kindUint || f.Kind == kindFloat) {
			zero, answer, refuse := "0", "0", `validate:"ne=0"`
			if f.Kind == kindBool {
				zero, answer, refuse = "false", "no", `validate:"eq=true"` // a consent box
			}
			b.errorf(f.Pos, "field %s: validate:\"required\" on %s %s rejects %s (validator's required means non-zero), so the user could not answer %s: drop it, as without omitempty the property is required in the schema already, or make the field *%s; to refuse %s on purpose, write %s",
				f.GoName, article(kindName(f.Kind)), kindName(f.Kind), zero, answer, b.typeString(f.Type), zero, refuse)
			return true
		}
		if !f.Required {
			add("required")
		}
		f.Required, f.NonZero = true, true
		return true
	case "min", "max", "len", "gte", "lte":
		lower := key == "min" || key == "gte" || key == "len"
		upper := key == "max" || key == "lte" || key == "len"
		switch f.Kind {
		case kindString, kindMultiSelect:
			n, err := strconv.ParseUint(param, 10, 64)
			if err != nil {
				return false
			}
			minKey, maxKey := "minLength", "maxLength"
			minP, maxP := &s.MinLength, &s.MaxLength
			fMin, fMax := &f.MinLength, &f.MaxLength
			if f.Kind == kindMultiSelect {
				minKey, maxKey = "minItems", "maxItems"
				minP, maxP = &s.MinItems, &s.MaxItems
				fMin, fMax = &f.MinItems, &f.MaxItems
			}
			if lower && !b.mergeCount(f, minKey, minP, fMin, n, add) {
				return true
			}
			if upper {
				b.mergeCount(f, maxKey, maxP, fMax, n, add)
			}
			return true
		case kindInt, kindUint, kindFloat:
			if key == "len" {
				return false
			}
			if _, err := strconv.ParseFloat(param, 64); err != nil {
				return false
			}
			bkey := "minimum"
			if upper {
				bkey = "maximum"
			}
			num, ok := b.parseBound(f, bkey, param)
			if !ok {
				return true
			}
			target, ftarget := &s.Minimum, &f.Minimum
			if upper {
				target, ftarget = &s.Maximum, &f.Maximum
			}
			if *target != "" {
				if !sameNumber(*target, num) {
					b.errorf(f.Pos, "field %s: conflicting %s: the jsonschema tag says %s, the validate tag %s", f.GoName, bkey, *target, num)
				}
				return true
			}
			*target, *ftarget = num, &num
			add(bkey)
			return true
		}
		return false
	case "oneof":
		if f.Kind == kindEnum {
			return b.oneOfEnum(f, param)
		}
		if f.Kind != kindString || len(s.Enum) > 0 {
			return false
		}
		vals := splitOneOf(param)
		if len(vals) == 0 {
			return false
		}
		e := &enumModel{}
		for _, v := range vals {
			e.Members = append(e.Members, enumMember{Value: v})
			s.Enum = append(s.Enum, v)
		}
		f.Kind, f.Enum = kindEnum, e
		add("enum")
		return true
	case "email", "url", "uri", "datetime":
		if f.Kind != kindString {
			return false
		}
		format := map[string]string{"email": "email", "url": "uri", "uri": "uri"}[key]
		if key == "datetime" {
			switch param {
			case time.DateOnly:
				format = "date"
			case time.RFC3339, time.RFC3339Nano:
				format = "date-time"
			default:
				return false
			}
		} else if param != "" {
			return false
		}
		if s.Format != "" {
			if s.Format != format {
				b.errorf(f.Pos, "field %s: conflicting format: the jsonschema tag says %q, the validate tag %q", f.GoName, s.Format, format)
			}
			return true
		}
		s.Format, f.Format = format, format
		add("format")
		return true
	}
	return false
}

// oneOfEnum applies validate:"oneof=…" to a field that already is an enum
// (of a type's constants or of enum tags). A value that is not a member
// makes a form the user cannot answer as the validator wants, so it is
// reported; a subset of the members narrows the choices offered, so the
// form offers no choice the validator would then refuse.
func (b *builder) oneOfEnum(f *fieldModel, param string) bool {
	vals := splitOneOf(param)
	members := f.Enum.Values()
	var strays []string
	for _, v := range vals {
		if !slices.Contains(members, v) {
			strays = append(strays, strconv.Quote(v))
		}
	}
	what := "enum tags"
	if f.Enum.Type != nil {
		what = "constants of " + b.typeString(f.Enum.Type)
	}
	if len(strays) > 0 {
		b.errorf(f.Pos, "field %s: validate oneof lists %s, which %s not among the %s (%s), so no choice on the form satisfies it: list only members in oneof, or drop oneof to offer every member",
			f.GoName, strings.Join(strays, ", "), map[bool]string{true: "is", false: "are"}[len(strays) == 1], what, strings.Join(members, ", "))
		return true
	}
	if len(vals) == 0 {
		return false
	}
	e := &enumModel{Type: f.Enum.Type}
	for _, m := range f.Enum.Members {
		if slices.Contains(vals, m.Value) {
			e.Members = append(e.Members, m)
		}
	}
	if f.Enum.Type == nil {
		// invopop keeps every enum tag member; a type's enum is an
		// addition already.
		f.Additions = append(f.Additions, oracle.Addition{Property: f.Name, Keyword: enumKeyword(e), Reason: oracle.ReasonValidateTag})
	}
	f.Enum = e
	setEnum(f.Schema, e)
	return true
}

func article(word string) string {
	if strings.ContainsRune("aeiou", rune(word[0])) {
		return "an"
	}
	return "a"
}

func (b *builder) mergeCount(f *fieldModel, keyword string, sp **uint64, fp **uint64, n uint64, add func(string)) bool {
	if *sp != nil {
		if **sp != n {
			b.errorf(f.Pos, "field %s: conflicting %s: the jsonschema tag says %d, the validate tag %d", f.GoName, keyword, **sp, n)
			return false
		}
		return true
	}
	v := n
	*sp, *fp = &v, &v
	add(keyword)
	return true
}

func sameNumber(a, b json.Number) bool {
	x, err1 := a.Float64()
	y, err2 := b.Float64()
	return err1 == nil && err2 == nil && x == y
}

// splitOneOf splits validator's oneof parameter: space separated, with
// 'single quoted' values allowed to hold spaces.
func splitOneOf(param string) []string {
	var out []string
	for param = strings.TrimSpace(param); param != ""; param = strings.TrimSpace(param) {
		if param[0] == '\'' {
			if end := strings.IndexByte(param[1:], '\''); end >= 0 {
				out = append(out, param[1:1+end])
				param = param[end+2:]
				continue
			}
		}
		word, rest, _ := strings.Cut(param, " ")
		out = append(out, word)
		param = rest
	}
	return out
}

// crossField reports validator tags that look at other fields.
func crossField(key string) bool {
	if strings.HasSuffix(key, "field") {
		return true // eqfield, nefield, gtfield, eqcsfield, ...
	}
	for _, prefix := range []string{"required_", "excluded_", "skip_unless"} {
		if strings.HasPrefix(key, prefix) {
			return true
		}
	}
	return false
}

// checkValidatorTag makes sure the validator knows the tag: an unknown tag
// would panic on the first answer at run time, so it is a build error here.
func (b *builder) checkValidatorTag(f *fieldModel, tag string) {
	var zero any
	switch f.Kind {
	case kindString, kindEnum, kindTime:
		zero = ""
	case kindInt:
		zero = int64(0)
	case kindUint:
		zero = uint64(0)
	case kindFloat:
		zero = float64(0)
	case kindBool:
		zero = false
	case kindMultiSelect:
		zero = []string{}
	}
	if err := tryValidator(zero, tag); err != nil {
		hint := ""
		if _, name, ok := strings.Cut(err.Error(), "Undefined validation function '"); ok {
			name = strings.TrimSuffix(name, "'")
			hint = subset.DidYouMean(name, validateRules)
		}
		b.errorf(f.Pos, "field %s: bad validate tag %q: %v%s", f.GoName, tag, err, hint)
	}
}

// validateRules are the rules go-playground/validator knows, for "did you
// mean" (TestValidateRulesKnown checks each against the validator). The
// ones that compare fields are left out: a form cannot use them.
var validateRules = []string{
	"required", "omitempty", "omitnil", "omitzero", "dive", "isdefault",
	"len", "min", "max", "eq", "eq_ignore_case", "ne", "ne_ignore_case", "lt", "lte", "gt", "gte",
	"alpha", "alphaspace", "alphanum", "alphanumspace", "alphaunicode", "alphanumunicode",
	"boolean", "numeric", "number", "hexadecimal", "hexcolor", "rgb", "rgba", "hsl", "hsla", "cmyk", "iscolor",
	"e164", "email", "url", "http_url", "https_url", "uri", "origin", "urn_rfc2141", "file", "filepath",
	"base32", "base64", "base64url", "base64rawurl", "contains", "containsany", "containsrune",
	"excludes", "excludesall", "excludesrune", "startswith", "endswith", "startsnotwith", "endsnotwith",
	"isbn", "isbn10", "isbn13", "issn", "uuid", "uuid3", "uuid4", "uuid5", "uuid7", "ulid",
	"md4", "md5", "sha256", "sha384", "sha512", "ascii", "printascii", "multibyte", "datauri",
	"latitude", "longitude", "ipv4", "ipv6", "ip", "cidrv4", "cidrv6", "cidr",
	"tcp_addr", "udp_addr", "ip_addr", "unix_addr", "mac", "hostname", "hostname_rfc1123", "hostname_port",
	"fqdn", "unique", "oneof", "oneofci", "noneof", "html", "url_encoded", "dir", "dirpath", "json", "jwt",
	"port", "lowercase", "uppercase", "datetime", "timezone", "country_code", "iso3166_1_alpha2",
	"iso3166_1_alpha3", "iso4217", "bcp47_language_tag", "postcode_iso3166_alpha2", "bic", "semver",
	"credit_card", "luhn_checksum", "cron", "cve", "ein", "duration",
}

func tryValidator(v any, tag string) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%s", strings.TrimSuffix(fmt.Sprint(r), " on field ''"))
		}
	}()
	_ = formcore.Validator().Var(v, tag)
	return nil
}

// credential reports a property that looks like it asks for a secret:
// form mode must not, URL mode exists for that.
func (b *builder) credential(f *fieldModel, reason string, allowed bool) {
	kind := f.Schema.Type
	if f.Kind == kindEnum {
		kind = "enum"
	}
	what, seen, ok := subset.CredentialProperty(kind, f.Name, f.Schema.Title, f.Schema.Description)
	if !ok || allowed {
		return
	}
	where := ""
	switch seen {
	case "title":
		where = fmt.Sprintf(" (title %q)", f.Schema.Title)
	case "description":
		where = fmt.Sprintf(" (description %q)", shorten(f.Schema.Description, 60))
	}
	b.errorf(f.Pos, "field %s: property %q%s looks like it asks for %s; form mode must not ask for credentials (use URL mode, or mark the field //%s:%s <reason>)", f.GoName, f.Name, where, what, directive.Prefix, directive.AllowCredential)
}

// shorten cuts s to at most n runes, marking the cut.
func shorten(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
