package runtime

import (
	"net"
	"net/http"
	"net/url"
	"strings"
)

// DNS rebinding protection of the HTTP transport: a browser page must not
// reach a local server under a name of its own (Host), nor call it from an
// origin the server does not allow (Origin). See Options.AllowedHosts and
// Options.AllowedOrigins.

// checkOrigin applies the Origin and Host checks to an HTTP request and
// answers 403 itself when it returns false.
func (s *Server) checkOrigin(w http.ResponseWriter, r *http.Request) bool {
	if !s.originAllowed(r.Header.Get("Origin")) {
		s.log.Warn("request from a forbidden origin", "origin", r.Header.Get("Origin"))
		httpError(w, http.StatusForbidden, CodeInvalidRequest, "origin not allowed")
		return false
	}
	if !s.hostAllowed(r) {
		s.log.Warn("request for a foreign host on a loopback listener", "host", r.Host)
		httpError(w, http.StatusForbidden, CodeInvalidRequest, "host not allowed")
		return false
	}
	return true
}

// originAllowed implements the Origin check (DNS rebinding protection).
func (s *Server) originAllowed(origin string) bool {
	if origin == "" {
		return true
	}
	for _, o := range s.opts.AllowedOrigins {
		if o == "*" || strings.EqualFold(o, origin) {
			return true
		}
	}
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" {
		return false
	}
	// The request's own Host is deliberately not trusted: after DNS
	// rebinding, a hostile page's Origin and Host name the same host.
	return isLoopbackHost(u.Hostname())
}

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
	host := r.Host
	for _, h := range s.opts.AllowedHosts {
		if strings.EqualFold(h, host) {
			return true
		}
	}
	name := host
	if h, _, err := net.SplitHostPort(host); err == nil {
		name = h
	}
	for _, h := range s.opts.AllowedHosts {
		if strings.EqualFold(h, name) {
			return true
		}
	}
	return isLoopbackHost(strings.Trim(name, "[]"))
}

func isLoopbackHost(h string) bool {
	if strings.EqualFold(h, "localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}
