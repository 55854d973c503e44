package formcore

import (
	"reflect"
	"strconv"
	"testing"
)

func uitoa(v uint64) string         { return strconv.FormatUint(v, 10) }
func strconvFloat(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

type embedded struct {
	X string `json:"x"`
}

type fpForm struct {
	A string `json:"a"`
	embedded
	B int `json:"b,omitempty" jsonschema:"minimum=1"`
}

func TestFingerprint(t *testing.T) {
	got := Fingerprint(reflect.TypeFor[fpForm]())
	type changed struct {
		A string `json:"a"`
		embedded
		B int `json:"b,omitempty" jsonschema:"minimum=2"`
	}
	if Fingerprint(reflect.TypeFor[changed]()) == got {
		t.Error("a changed tag keeps the fingerprint")
	}
	type changedEmbedded struct {
		A string `json:"a"`
		embedded2
		B int `json:"b,omitempty" jsonschema:"minimum=1"`
	}
	if Fingerprint(reflect.TypeFor[changedEmbedded]()) == got {
		t.Error("a changed embedded struct keeps the fingerprint")
	}
	CheckFingerprint((*fpForm)(nil), "fpForm", got) // must not panic
	defer func() {
		r := recover()
		if r == nil || r.(string) != "elicit: the struct tags of fpForm changed after its code was generated: run go generate" {
			t.Errorf("recover() = %v", r)
		}
	}()
	CheckFingerprint((*fpForm)(nil), "fpForm", got+1)
}

type embedded2 struct {
	X string `json:"y"`
}

type vForm struct {
	Addr string  `json:"addr" validate:"ip"`
	Host string  `json:"host,omitempty" validate:"hostname"`
	Skip string  `json:"-" validate:"required"`
	Bare string  `validate:"max=1"`
	Num  float64 `json:"num" validate:"gt=1"`
}

func TestValidate(t *testing.T) {
	var d Decoder
	d.Reset([]byte(`{}`))
	for d.Next() {
	}
	d.Problem("addr", "was already bad")
	d.validate(&vForm{Addr: "x", Host: "-x-", Skip: "", Bare: "toolong", Num: 1})
	want := `elicit: invalid content: "Bare" must be at most 1 character; "addr" was already bad; "host" must be a host name; "num" must be greater than 1`
	// Skip has no JSON name, so validator reports it by its Go name.
	err := d.Err()
	if err == nil {
		t.Fatal("no error")
	}
	got := err.Error()
	if got != want && got != `elicit: invalid content: "Bare" must be at most 1 character; "Skip" is required; "addr" was already bad; "host" must be a host name; "num" must be greater than 1` {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if err := ValidationProblems(Validator().Struct(&vForm{Addr: "::1", Host: "example.com", Skip: "s", Num: 2})); err != nil {
		t.Errorf("valid struct: %v", err)
	}
	if err := ValidationProblems(Validator().Struct(&vForm{Addr: "nope", Host: "example.com", Skip: "s", Num: 2})); err == nil || err.Error() != `elicit: invalid content: "addr" must be an IP address` {
		t.Errorf("got %v", err)
	}
}

func TestValidateVar(t *testing.T) {
	var d Decoder
	d.Reset([]byte(`{}`))
	for d.Next() {
	}
	d.ValidateVar("a", "x", "ip")
	d.ValidateVar("b", "192.0.2.1", "ip")
	d.ValidateVar("c", 5, "gt=10")
	want := `elicit: invalid content: "a" must be an IP address; "c" must be greater than 10`
	if err := d.Err(); err == nil || err.Error() != want {
		t.Errorf("got  %v\nwant %s", err, want)
	}
}

func TestJSONName(t *testing.T) {
	typ := reflect.TypeFor[struct {
		A int `json:"a,omitempty"`
		B int `json:"-"`
		//lint:ignore SA5008 the "-," form (a property named "-") is what is tested
		C int `json:"-,"`
		D int
		E int `json:",omitempty"`
	}]()
	for i, want := range []string{"a", "", "-", "D", "E"} {
		if got := JSONName(typ.Field(i)); got != want {
			t.Errorf("field %d: %q, want %q", i, got, want)
		}
	}
}
