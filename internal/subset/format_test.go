package subset

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestCheckFormat(t *testing.T) {
	tests := []struct {
		format string
		good   []string
		bad    []string
	}{
		{"email",
			[]string{"a@example.com", "first.last@example.co.uk", "a+tag@sub.example.org", "x!#$%&'*+/=?^_`{|}~-y@example.com", "A@EXAMPLE.COM", "a@xn--bcher-kva.example", "a@b-c.de", strings.Repeat("a", 64) + "@example.com"},
			[]string{"", "bob", "bob@", "@example.com", "bob@localhost", "a@@example.com", "a@b@example.com", "a..b@example.com", ".a@example.com", "a.@example.com",
				"a b@example.com", "a@exa mple.com", "a@-example.com", "a@example-.com", "a@example..com", "a@example.com.", "a@1.2.3.4", "josé@example.com",
				strings.Repeat("a", 65) + "@example.com", "a@" + strings.Repeat("b", 64) + ".com", "\"quoted\"@example.com", "a@[127.0.0.1]", "a@example.com\n"}},
		{"uri",
			[]string{"https://example.com", "http://example.com:8080/a/b?c=d&e#f", "mailto:bob@example.com", "urn:isbn:0451450523", "file:///etc/hosts",
				"http://[::1]:80/", "http://[2001:db8::1]/", "http://user:pw@host/", "https://example.com/%E2%82%AC", "ftp://1.2.3.4/x", "a:", "tel:+1-201-555-0123",
				"http://[v1.fe80::a]/", "https://example.com/?q=a/b?c", "data:text/plain;base64,SGk="},
			[]string{"", "example.com", "/relative/path", "//example.com", "://x", "1http://x", "ht tp://x", "http://exa mple.com", "http://example.com/a b",
				"http://example.com/%zz", "http://example.com/%4", "http://[::1/", "http://[zz]/", "http://[::1]x/", "http://host:port/", "C:\\path",
				"http://example.com/#a#b", "http://example.com/<x>", "https://例え.jp", "http://[fe80::1%25eth0]/"}},
		{"date",
			[]string{"2025-01-31", "2024-02-29", "2000-02-29", "0000-01-01", "9999-12-31", "2025-04-30"},
			[]string{"", "2025-02-30", "2025-02-29", "1900-02-29", "2025-04-31", "2025-13-01", "2025-00-10", "2025-01-00", "2025-1-01", "25-01-01", "2025/01/01",
				"2025-01-31T00:00:00Z", "２０２５-01-01", "2025-01-3a"}},
		{"date-time",
			[]string{"2025-01-31T09:30:00Z", "2025-01-31t09:30:00z", "2025-01-31T09:30:00.1Z", "2025-01-31T09:30:00.123456789123+05:30", "2025-01-31T23:59:59-08:00",
				"2016-12-31T23:59:60Z", "2024-02-29T00:00:00+00:00", "2025-01-31T09:30:00+23:59", "2025-01-31T09:30:00-00:00"},
			[]string{"", "2025-01-31", "2025-01-31T09:30:00", "2025-01-31 09:30:00Z", "2025-01-31T09:30Z", "2025-01-31T24:00:00Z", "2025-01-31T09:60:00Z",
				"2025-01-31T09:30:61Z", "2025-01-31T09:30:60Z", "2025-02-30T09:30:00Z", "2025-01-31T09:30:00+24:00", "2025-01-31T09:30:00+0530",
				"2025-01-31T09:30:00+05", "2025-01-31T09:30:00.Z", "2025-01-31T09:30:00ZZ", "2025-01-31T9:30:00Z", "2025-01-31T09:30:00UTC"}},
	}
	for _, tt := range tests {
		for _, s := range tt.good {
			if err := CheckFormat(tt.format, s); err != nil {
				t.Errorf("%s %q: unexpected error %v", tt.format, s, err)
			}
		}
		for _, s := range tt.bad {
			err := CheckFormat(tt.format, s)
			if err == nil {
				t.Errorf("%s %q: accepted", tt.format, s)
				continue
			}
			if !errors.Is(err, ErrBadFormat) || !strings.HasPrefix(err.Error(), "must be ") {
				t.Errorf("%s %q: error %v must match ErrBadFormat and read \"must be ...\"", tt.format, s, err)
			}
		}
	}
}

func TestCheckFormatUnknown(t *testing.T) {
	for _, f := range []string{"", "hostname", "Email", "ipv4", "uuid"} {
		err := CheckFormat(f, "x")
		if !errors.Is(err, ErrUnknownFormat) || errors.Is(err, ErrBadFormat) {
			t.Errorf("format %q: got %v", f, err)
		}
	}
	if got := CheckFormat("phone", "1").Error(); got != `unknown format "phone": must be one of "email", "uri", "date", "date-time"` {
		t.Errorf("message %q", got)
	}
}

func TestCheckFormatAllocations(t *testing.T) {
	for _, c := range [][2]string{
		{"email", "a.b@example.com"}, {"uri", "https://[::1]:8080/a?b#c"}, {"date", "2024-02-29"}, {"date-time", "2025-01-31T09:30:00.5+05:30"},
		{"email", "bad"}, {"uri", "bad"}, {"date", "bad"}, {"date-time", "bad"},
	} {
		if n := testing.AllocsPerRun(100, func() { _ = CheckFormat(c[0], c[1]) }); n != 0 {
			t.Errorf("CheckFormat(%q, %q) allocates %v times", c[0], c[1], n)
		}
	}
}

func TestParseDateTime(t *testing.T) {
	tests := []struct {
		in   string
		want time.Time
	}{
		{"2025-01-31T09:30:00Z", time.Date(2025, 1, 31, 9, 30, 0, 0, time.UTC)},
		{"2025-01-31t09:30:00.5z", time.Date(2025, 1, 31, 9, 30, 0, 5e8, time.UTC)},
		{"2025-01-31T09:30:00.123456789999+05:30", time.Date(2025, 1, 31, 4, 0, 0, 123456789, time.UTC)},
		{"2025-01-31T09:30:00-08:00", time.Date(2025, 1, 31, 17, 30, 0, 0, time.UTC)},
		{"2016-12-31T23:59:60Z", time.Date(2017, 1, 1, 0, 0, 0, 0, time.UTC)},
	}
	for _, tt := range tests {
		got, err := ParseDateTime(tt.in)
		if err != nil || !got.Equal(tt.want) {
			t.Errorf("%q: got %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
	if got, _ := ParseDateTime("2025-01-31T09:30:00+05:30"); func() int { _, off := got.Zone(); return off }() != 5*3600+30*60 {
		t.Errorf("offset lost: %v", got)
	}
	// Where time.Parse agrees, ParseDateTime gives the same instant.
	for _, s := range []string{"2025-01-31T09:30:00Z", "1999-12-31T23:59:59.999+01:00", "2024-02-29T12:00:00-03:30"} {
		a, _ := ParseDateTime(s)
		b, err := time.Parse(time.RFC3339Nano, s)
		if err != nil || !a.Equal(b) {
			t.Errorf("%q: %v vs time.Parse %v (%v)", s, a, b, err)
		}
	}
	if _, err := ParseDateTime("2025-02-30T00:00:00Z"); !errors.Is(err, ErrBadFormat) || !strings.Contains(err.Error(), `"2025-02-30T00:00:00Z"`) {
		t.Errorf("bad date-time: %v", err)
	}
}

func TestParseDate(t *testing.T) {
	got, err := ParseDate("2024-02-29")
	if err != nil || !got.Equal(time.Date(2024, 2, 29, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("got %v, %v", got, err)
	}
	if _, err := ParseDate("2025-02-29"); !errors.Is(err, ErrBadFormat) {
		t.Errorf("2025-02-29: %v", err)
	}
}
