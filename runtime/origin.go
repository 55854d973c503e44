package runtime

import (
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// DNS rebinding protection of the HTTP transport: a browser page must not
// reach a local server under a name of its own (Host), nor call it from an
// origin the server does not allow (Origin). See Options.AllowedHosts and
// Options.AllowedOrigins.
//
// Both headers are read by one rule, the form a browser sends and nothing
// else:
//
//	Origin = "null" / scheme "://" authority
//	Host   = authority
//	authority = host [ ":" port ]
//	host   = reg-name (letters, digits, "-", ".", "_") / "[" IPv6 address "]"
//	port   = 1 to 5 digits, at most 65535
//
// So userinfo ("http://evil.example@localhost"), a path, query or fragment
// ("http://localhost#@evil.example"), a missing scheme ("//localhost"), an
// unbalanced bracket ("[::1") or an IPv6 zone are refused before any name
// is compared, and so is an Origin header given more than once or empty:
// a browser sends one, well formed. Names are then compared without regard
// to case.

// checkOrigin applies the Origin and Host checks to an HTTP request and
// answers 403 itself when it returns false.
func (s *Server) checkOrigin(w http.ResponseWriter, r *http.Request) bool {
	if origins, ok := r.Header["Origin"]; ok && !originAllowed(origins, s.opts.AllowedOrigins) {
		s.log.Warn("request from a forbidden origin", "origin", clip(strings.Join(origins, ", ")))
		httpError(w, http.StatusForbidden, CodeInvalidRequest, "origin not allowed")
		return false
	}
	if !s.hostAllowed(r) {
		s.log.Warn("request for a foreign host on a loopback listener", "host", clip(r.Host))
		httpError(w, http.StatusForbidden, CodeInvalidRequest, "host not allowed")
		return false
	}
	return true
}

// originAllowed implements the Origin check (DNS rebinding protection) on
// the values of a request's Origin header, which is present: exactly one
// well-formed value (see above) that allowed lists ("*": any) or that names
// a loopback host. The request's own Host is deliberately not trusted:
// after DNS rebinding, a hostile page's Origin and Host name the same host.
func originAllowed(origins, allowed []string) bool {
	if len(origins) != 1 {
		return false
	}
	origin := origins[0]
	host, ok := parseOrigin(origin)
	if !ok {
		return false
	}
	for _, o := range allowed {
		if o == "*" || strings.EqualFold(o, origin) {
			return true
		}
	}
	return host != "" && isLoopbackHost(host)
}

// parseOrigin returns the host of a well-formed Origin value ("" for
// "null") and reports whether it is well formed.
func parseOrigin(origin string) (string, bool) {
	if origin == "null" {
		return "", true
	}
	scheme, authority, ok := strings.Cut(origin, "://")
	if !ok || !validScheme(scheme) {
		return "", false
	}
	return parseAuthority(authority)
}

// validScheme reports whether s is a URI scheme (RFC 3986 3.1).
func validScheme(s string) bool {
	if s == "" || !isLetter(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if c := s[i]; !isLetter(c) && !isDigit(c) && c != '+' && c != '-' && c != '.' {
			return false
		}
	}
	return true
}

// parseAuthority returns the host of host[:port] (without the brackets of
// an IPv6 address) and reports whether it is well formed (see above).
func parseAuthority(s string) (string, bool) {
	var host, rest string
	if strings.HasPrefix(s, "[") {
		end := strings.IndexByte(s, ']')
		if end < 0 {
			return "", false
		}
		host, rest = s[1:end], s[end+1:]
		ip, err := netip.ParseAddr(host)
		if err != nil || !ip.Is6() || ip.Zone() != "" {
			return "", false
		}
	} else {
		host, rest = s, ""
		if i := strings.IndexByte(s, ':'); i >= 0 {
			host, rest = s[:i], s[i:]
		}
		if !validRegName(host) {
			return "", false
		}
	}
	if rest == "" {
		return host, true
	}
	port, ok := strings.CutPrefix(rest, ":")
	if !ok || port == "" || len(port) > 5 {
		return "", false
	}
	n := 0
	for i := range len(port) {
		if !isDigit(port[i]) {
			return "", false
		}
		n = n*10 + int(port[i]-'0')
	}
	return host, n <= 65535
}

// validRegName reports whether s is a host name as browsers serialize it:
// letters, digits, "-", "." and "_" (IPv4 addresses included).
func validRegName(s string) bool {
	if s == "" {
		return false
	}
	for i := range len(s) {
		if c := s[i]; !isLetter(c) && !isDigit(c) && c != '-' && c != '.' && c != '_' {
			return false
		}
	}
	return true
}

func isLetter(c byte) bool { return 'a' <= c|0x20 && c|0x20 <= 'z' }
func isDigit(c byte) bool  { return '0' <= c && c <= '9' }

// hostAllowed implements the Host check of a loopback listener: after DNS
// rebinding a hostile page reaches 127.0.0.1 under its own name.
func (s *Server) hostAllowed(r *http.Request) bool {
	local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok {
		return true
	}
	tcp, ok := local.(*net.TCPAddr)
	if !ok || !tcp.IP.IsLoopback() {
		return true
	}
	return loopbackHostAllowed(r.Host, s.opts.AllowedHosts)
}

// loopbackHostAllowed reports whether a loopback listener accepts the Host
// header host: well formed (see above), and a loopback name or one that
// allowed lists, as host or as host:port.
func loopbackHostAllowed(host string, allowed []string) bool {
	name, ok := parseAuthority(host)
	if !ok {
		return false
	}
	for _, h := range allowed {
		if strings.EqualFold(h, host) || strings.EqualFold(h, name) {
			return true
		}
	}
	return isLoopbackHost(name)
}

func isLoopbackHost(h string) bool {
	if strings.EqualFold(h, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(h) // net.ParseIP's forms but a zone, without its allocation
	return err == nil && ip.Zone() == "" && ip.IsLoopback()
}
