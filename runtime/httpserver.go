package runtime

import (
	"net/http"
	"time"
)

// Timeouts of NewHTTPServer.
const (
	// HTTPReadHeaderTimeout bounds reading a request's headers.
	HTTPReadHeaderTimeout = 10 * time.Second
	// HTTPReadTimeout bounds reading a whole request, body included: a
	// body trickled byte by byte is cut off. Once a POST's body is read,
	// the call it carries may run for as long as it needs.
	HTTPReadTimeout = 30 * time.Second
	// HTTPWriteTimeout bounds writing a reply: a plain JSON reply, or each
	// event of an SSE stream. The time a call or a person takes before the
	// reply is written does not count.
	HTTPWriteTimeout = 30 * time.Second
	// HTTPIdleTimeout closes a keep-alive connection that carries no
	// request for this long.
	HTTPIdleTimeout = 60 * time.Second
)

// NewHTTPServer returns an http.Server for h (a Server, or a mux that
// mounts one) on addr with timeouts that a hostile client cannot hold
// connections open against — HTTPReadHeaderTimeout, HTTPReadTimeout,
// HTTPWriteTimeout, HTTPIdleTimeout — and a 64 KiB header cap. They leave
// calls alone: a Server lifts a POST's read and write deadlines once its
// body is read, and an SSE stream that waits on a person only has each of
// its events bounded by the write timeout. Change any field before
// serving. On an http.Server of your own without timeouts, a Server still
// bounds each write of a reply by HTTPWriteTimeout, so that a client that
// never reads cannot hold its reply (Options.MaxHeldBytes) for as long as
// it keeps the connection; nothing bounds how many connections are open
// (wrap the listener, e.g. with golang.org/x/net/netutil.LimitListener,
// for that).
func NewHTTPServer(addr string, h http.Handler) *http.Server {
	return &http.Server{
		Addr:              addr,
		Handler:           h,
		ReadHeaderTimeout: HTTPReadHeaderTimeout,
		ReadTimeout:       HTTPReadTimeout,
		WriteTimeout:      HTTPWriteTimeout,
		IdleTimeout:       HTTPIdleTimeout,
		MaxHeaderBytes:    64 << 10,
	}
}
