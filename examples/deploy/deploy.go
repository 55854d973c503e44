// Package deploy is a tool handler that asks its user twice — where to
// deploy (a form with a validate tag), then "are you sure?" — and, in
// deploy_test.go, its whole test through runtime/elicittest: accept,
// decline and invalid content, on every protocol version and transport,
// in a dozen lines. It is the README's "Test a handler".
package deploy

import (
	"context"
	"errors"
	"fmt"

	"github.com/go-elicit/elicit/runtime"
)

// NewServer returns a server with the deploy tool.
func NewServer() *runtime.Server {
	srv := runtime.NewServer(runtime.Options{Name: "deploy", Version: "1.0.0"})
	runtime.AddTool(srv, runtime.Tool{Name: "deploy", Description: "Deploy the service; the user says where."}, Deploy)
	return srv
}

// Deploy is the deploy tool's handler: it asks where to deploy, then for
// a confirmation. deploy_test.go tests it through NewServer's server and,
// called directly, with elicittest.Handle.
func Deploy(ctx context.Context, req *runtime.CallToolRequest, _ struct{}) (*runtime.CallToolResult, error) {
	if err := runtime.CanElicit[DeployForm](ctx); err != nil {
		return runtime.ErrorResult("not deployed: %v", err), nil
	}
	where, err := runtime.Elicit[DeployForm](ctx, "Where should the service go?")
	if err != nil {
		return refused(err)
	}
	what := fmt.Sprintf("%d replicas to %s on %s", where.Replicas, where.Env, where.Host)
	ok, err := runtime.Elicit[ConfirmForm](ctx, "Deploy "+what+"?")
	switch {
	case err != nil:
		return refused(err)
	case !ok.Confirm:
		return runtime.ErrorResult("not deployed: the user did not confirm"), nil
	}
	return runtime.TextResult("deployed " + what), nil
}

// refused is the tool's answer when an elicitation gave no form.
func refused(err error) (*runtime.CallToolResult, error) {
	if errors.Is(err, runtime.ErrInputRequired) {
		return nil, err // 2026-07-28: the runtime asks, and runs deploy again with the answer
	}
	return runtime.ErrorResult("not deployed: %v", err), nil
}
