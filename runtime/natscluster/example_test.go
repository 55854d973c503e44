package natscluster_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	"github.com/go-elicit/elicit/internal/mcpclient"
	"github.com/go-elicit/elicit/runtime"
	"github.com/go-elicit/elicit/runtime/internal/testform"
	"github.com/go-elicit/elicit/runtime/natscluster"
)

// Two replicas behind a load balancer without stickiness: the client's
// answer to an elicitation lands on the replica that is not waiting for it,
// and the Cluster forwards it there through NATS.
func Example() {
	ctx := context.Background()
	ns, stop := embeddedNATS() // in production: your NATS, with JetStream
	defer stop()

	var replicas []*runtime.Server
	for _, name := range []string{"a", "b"} {
		nc, err := nats.Connect(ns.ClientURL())
		if err != nil {
			fmt.Println(err)
			return
		}
		defer nc.Close()
		cl, err := natscluster.New(ctx, natscluster.Options{Conn: nc, Replica: name})
		if err != nil {
			fmt.Println(err)
			return
		}
		defer cl.Close()
		srv := runtime.NewServer(runtime.Options{Cluster: cl})
		srv.AddTool(runtime.Tool{Name: "greet"}, func(ctx context.Context, req *runtime.CallToolRequest) (*runtime.CallToolResult, error) {
			form, err := runtime.Elicit[testform.NameForm](ctx, "Who is there?")
			if err != nil {
				return nil, err
			}
			return runtime.TextResult("hello " + form.Name), nil
		})
		defer srv.Shutdown(ctx)
		replicas = append(replicas, srv)
	}
	var next atomic.Int64
	lb := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		replicas[next.Add(1)%int64(len(replicas))].ServeHTTP(w, r)
	}))
	defer lb.Close()

	c, err := mcpclient.Connect(ctx, mcpclient.Options{
		URL:          lb.URL,
		Protocol:     runtime.Version20251125,
		Capabilities: mcpclient.Capabilities{Elicitation: &mcpclient.ElicitationCapability{}},
		OnElicit: func(context.Context, mcpclient.ElicitParams) (mcpclient.ElicitResult, error) {
			return mcpclient.ElicitResult{Action: "accept", Content: json.RawMessage(`{"name":"Ada"}`)}, nil
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	res, err := c.CallTool(ctx, "greet", nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(strings.Join(res.Lines(), ""))
	// Output:
	// hello Ada
}

// embeddedNATS runs a JetStream-enabled NATS server on a loopback port.
func embeddedNATS() (*server.Server, func()) {
	dir, err := os.MkdirTemp("", "natscluster-example")
	if err != nil {
		panic(err)
	}
	ns, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: -1, JetStream: true, StoreDir: dir, NoLog: true, NoSigs: true})
	if err != nil {
		panic(err)
	}
	ns.Start()
	if !ns.ReadyForConnections(10 * time.Second) {
		panic("nats server not ready within 10s")
	}
	return ns, func() {
		ns.Shutdown()
		ns.WaitForShutdown()
		os.RemoveAll(dir)
	}
}
