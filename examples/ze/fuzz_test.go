package main

import (
	"errors"
	"testing"

	"github.com/go-elicit/elicit/runtime"
)

// FuzzGeneratedDecoders feeds arbitrary content to every generated decoder
// of the example: it never panics, and it either fills the form or returns a
// *runtime.ContentError.
func FuzzGeneratedDecoders(f *testing.F) {
	for _, seed := range []string{
		`{"command":"show version"}`,
		`{"address":"192.0.2.1","asn":1,"family":"ipv4-unicast","extra":["l2vpn-evpn"],"contact":"a@b.example","passive":true}`,
		`{"confirm":true}`,
		`{"asn":1e400,"family":"\ud800","extra":[1,{}],"passive":"yes"}`,
		`{"command":"a","command":"b"}`,
		`[]`, `{`, `null`, `{"a":` + `[[[[[[[[[[` + `]]]]]]]]]]}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, content []byte) {
		check := func(err error) {
			var ce *runtime.ContentError
			if err != nil && !errors.As(err, &ce) {
				t.Fatalf("error %v is not a *ContentError", err)
			}
		}
		var c CommandForm
		check(c.ElicitDecode(content))
		var p PeerForm
		check(p.ElicitDecode(content))
		var k ConfirmForm
		check(k.ElicitDecode(content))
	})
}
