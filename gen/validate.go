package gen

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/go-elicit/elicit/internal/subset"
	"github.com/go-elicit/elicit/runtime/formimpl"
)

// validateTag maps the parts of a validate tag that the schema can express
// to schema keywords (the decoder then enforces them) and keeps the rest for
// the validator, which runs on the server after decoding.
func (b *builder) validateTag(f *Field, tag string) {
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
func (b *builder) validatePart(f *Field, p string) bool {
	key, param, _ := strings.Cut(p, "=")
	s := f.Schema
	add := func(keyword string) {
		f.Additions = append(f.Additions, Addition{f.Name, keyword, ReasonValidateTag})
	}
	switch key {
	case "required":
		if param != "" {
			return false
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
		case KindString, KindMultiSelect:
			n, err := strconv.ParseUint(param, 10, 64)
			if err != nil {
				return false
			}
			minKey, maxKey := "minLength", "maxLength"
			minP, maxP := &s.MinLength, &s.MaxLength
			fMin, fMax := &f.MinLength, &f.MaxLength
			if f.Kind == KindMultiSelect {
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
		case KindInt, KindUint, KindFloat:
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
		if f.Kind != KindString || len(s.Enum) > 0 {
			return false
		}
		vals := splitOneOf(param)
		if len(vals) == 0 {
			return false
		}
		e := &Enum{}
		for _, v := range vals {
			e.Members = append(e.Members, EnumMember{Value: v})
			s.Enum = append(s.Enum, v)
		}
		f.Kind, f.Enum = KindEnum, e
		add("enum")
		return true
	case "email", "url", "uri", "datetime":
		if f.Kind != KindString {
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

func (b *builder) mergeCount(f *Field, keyword string, sp **uint64, fp **uint64, n uint64, add func(string)) bool {
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
func (b *builder) checkValidatorTag(f *Field, tag string) {
	var zero any
	switch f.Kind {
	case KindString, KindEnum, KindTime:
		zero = ""
	case KindInt:
		zero = int64(0)
	case KindUint:
		zero = uint64(0)
	case KindFloat:
		zero = float64(0)
	case KindBool:
		zero = false
	case KindMultiSelect:
		zero = []string{}
	}
	if err := tryValidator(zero, tag); err != nil {
		b.errorf(f.Pos, "field %s: bad validate tag %q: %v", f.GoName, tag, err)
	}
}

func tryValidator(v any, tag string) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%s", strings.TrimSuffix(fmt.Sprint(r), " on field ''"))
		}
	}()
	_ = formimpl.Validator().Var(v, tag)
	return nil
}

// credential reports a property that looks like it asks for a secret:
// form mode must not, URL mode exists for that.
func (b *builder) credential(f *Field, reason string, allowed bool) {
	what, ok := subset.Credential(f.Name)
	where := ""
	if t := f.Schema.Title; !ok && t != "" {
		what, ok = subset.Credential(t)
		where = fmt.Sprintf(" (title %q)", t)
	}
	if d := f.Schema.Description; !ok && d != "" {
		// Descriptions are prose: only the unambiguous phrases count.
		what, ok = subset.CredentialInProse(d)
		where = fmt.Sprintf(" (description %q)", shorten(d, 60))
	}
	if !ok || allowed {
		return
	}
	b.errorf(f.Pos, "field %s: property %q%s looks like it asks for %s; form mode must not ask for credentials (use URL mode, or mark the field //%s:%s <reason>)", f.GoName, f.Name, where, what, DirectivePrefix, DirectiveAllowCredential)
}

// shorten cuts s to at most n runes, marking the cut.
func shorten(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
