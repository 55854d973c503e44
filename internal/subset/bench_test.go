package subset

import "testing"

func BenchmarkCheckFormat(b *testing.B) {
	for _, c := range []struct{ name, format, value string }{
		{"email", "email", "first.last+tag@mail.example.com"},
		{"uri", "uri", "https://user@example.com:8443/a/b/c?q=1&r=%20#frag"},
		{"date", "date", "2024-02-29"},
		{"date-time", "date-time", "2025-01-31T09:30:00.123456+05:30"},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := CheckFormat(c.format, c.value); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkValidateContent(b *testing.B) {
	schema := decode(b, contentSchema)
	content := decode(b, `{"name":"abc","count":3,"email":"a@example.com","site":"https://example.com","born":"2024-02-29","at":"2025-01-31T09:30:00Z",
		"ratio":0.5,"ok":true,"color":"red","legacy":"a","size":"s","tags":["x","y"],"picks":["p"]}`)
	b.ReportAllocs()
	for b.Loop() {
		if vs := ValidateContent(schema, content); len(vs) != 0 {
			b.Fatal(vs)
		}
	}
}

func BenchmarkCheck(b *testing.B) {
	schema := decode(b, contentSchema)
	b.ReportAllocs()
	for b.Loop() {
		if vs := Check(schema, V2025_11_25); len(vs) != 0 {
			b.Fatal(vs)
		}
	}
}
