package mcpclient_test

import (
	"bufio"
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/go-elicit/elicit/runtime"
)

// Regression tests for two runtime/stdio.go bugs in 2026-07-28
// cancellation, found while writing the stdio client (fixed):
//
//  1. notifications/cancelled without _meta is ignored: handleLine routes a
//     message to the modern path only if it has _meta, and a notification's
//     _meta is optional in 2026-07-28 (CancelledNotificationParams has
//     _meta?: NotificationMetaObject, which has no protocol keys). The call
//     runs to its end.
//  2. A cancelled call's result is still written: "server SHOULD stop, MUST
//     NOT send more for it".

const modernMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

// serveSlow runs a runtime server with a "slow" tool (2 s, or until its
// context ends) on pipes and returns its stdin and its stdout lines.
func serveSlow(t *testing.T) (io.Writer, <-chan string) {
	t.Helper()
	srv := runtime.NewServer(runtime.Options{Name: "slow", Version: "1"})
	runtime.AddTool(srv, runtime.Tool{Name: "slow"}, func(ctx context.Context, _ *runtime.CallToolRequest, _ struct{}) (*runtime.CallToolResult, error) {
		select {
		case <-ctx.Done():
			return runtime.ErrorResult("stopped: %v", context.Cause(ctx)), nil
		case <-time.After(2 * time.Second):
			return runtime.TextResult("slept"), nil
		}
	})
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = srv.ServeStdio(context.Background(), inR, outW)
		outW.Close()
	}()
	lines := make(chan string, 16)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(outR)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	t.Cleanup(func() {
		inW.Close()
		<-done
		for range lines {
		}
	})
	return inW, lines
}

func cancelSlow(t *testing.T, cancelParams string) {
	in, lines := serveSlow(t)
	io.WriteString(in, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow","arguments":{},`+modernMeta+`}}`+"\n")
	time.Sleep(100 * time.Millisecond)
	io.WriteString(in, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":`+cancelParams+`}`+"\n")
	select {
	case l := <-lines:
		t.Errorf("the server wrote %s for a cancelled request", l)
		if strings.Contains(l, "slept") {
			t.Errorf("and the cancel was ignored: the handler ran to its end")
		}
	case <-time.After(3 * time.Second):
	}
}

func TestRuntimeStdioModernCancelWithoutMeta(t *testing.T) {
	cancelSlow(t, `{"requestId":1,"reason":"no _meta"}`)
}

func TestRuntimeStdioModernCancelledCallStillAnswered(t *testing.T) {
	cancelSlow(t, `{"requestId":1,"reason":"with _meta",`+modernMeta+`}`)
}
