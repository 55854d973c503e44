//go:build unix

// Command deploytest is what `make deploy-test` runs: issue 27's deployment
// test with real parts, all on loopback. It starts the real nats-server
// (JetStream on, file store), three examples/ze replicas clustered on it
// (built binaries, separate processes, the flags docs/deploy.md gives),
// nginx round-robin in front of them without stickiness (the location block
// of docs/deploy.md, mcp.conf here), one unclustered replica for the direct
// baseline, and a TCP proxy that cuts connections; then it drives
// 2025-11-25 clients (the official go-sdk client, streamable transport) and
// 2026-07-28 clients (internal/mcpclient, cmd/mcptest's client) through
// each scenario, every person answering after a think time:
//
//	healthy                      load through nginx, and the same load to one replica direct
//	proxy_read_timeout < think   nginx's read timeout shorter than the person
//	dropped connection           the connection cut right after the elicitation arrives
//	replica killed (kill -9)     one replica killed mid-load (restarted after)
//	NATS restarted               nats-server stopped and started again on its port and store
//
// It prints a table (scenario × protocol: calls, completed, lost, lost calls
// whose handler was on the killed replica, clients that waited out their
// timeout, the calls begun after the fault was over that completed, p50
// latency of the completed calls) and the latency through nginx against
// one replica direct. Then it checks issue 27's targets: nothing lost but, for the
// killed replica, the calls whose handler was on it, and no client waiting
// out its timeout. Each missed target is a line naming it; the exit status
// is then 1 (0 with -check=false).
//
//	go run ./internal/cmd/deploytest -ze bin/ze -nats-server bin/nats-server
//
// nginx is taken from -nginx, else PATH or /usr/sbin/nginx. Without it the
// run skips, saying so (exit 0), except under CI=true, where it fails:
// `make deploy-test` installs Debian's nginx-light there. Everything runs
// on 127.0.0.1 in a temporary directory, removed at the end unless -keep,
// and the run stops by itself within -deadline.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"time"
)

// config is the command line.
type config struct {
	ze, natsServer, nginx    string
	replicas, workers, calls int
	loadFor, faultAt         time.Duration
	think, longThink         time.Duration
	clientTimeout            time.Duration
	readTimeout              time.Duration
	shortReadTimeout         time.Duration
	natsDown, deadline       time.Duration
	replicaFlags             []string
	check, keep              bool
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var cfg config
	fs := flag.NewFlagSet("deploytest", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&cfg.ze, "ze", "bin/ze", "the examples/ze binary")
	fs.StringVar(&cfg.natsServer, "nats-server", "bin/nats-server", "the nats-server binary")
	fs.StringVar(&cfg.nginx, "nginx", "", "the nginx binary (default: nginx in PATH, or /usr/sbin/nginx)")
	fs.IntVar(&cfg.replicas, "replicas", 3, "clustered replicas behind nginx")
	fs.IntVar(&cfg.workers, "workers", 10, "concurrent clients per scenario")
	fs.IntVar(&cfg.calls, "calls", 20, "calls per client under healthy load (one session each)")
	fs.DurationVar(&cfg.loadFor, "load-for", 6*time.Second, "how long the clients start calls in a fault scenario (a new session each)")
	fs.DurationVar(&cfg.faultAt, "fault-at", 2*time.Second, "when the fault strikes, after the load started")
	fs.DurationVar(&cfg.think, "think", time.Second, "the person's think time before answering, in fault scenarios")
	fs.DurationVar(&cfg.longThink, "long-think", 3*time.Second, "the think time of the proxy read timeout scenario")
	fs.DurationVar(&cfg.clientTimeout, "client-timeout", 10*time.Second, "each call's timeout in the client")
	fs.DurationVar(&cfg.readTimeout, "proxy-read-timeout", 60*time.Second, "nginx's proxy_read_timeout (nginx's default: 60s)")
	fs.DurationVar(&cfg.shortReadTimeout, "short-proxy-read-timeout", 2*time.Second, "the proxy_read_timeout below -long-think")
	fs.DurationVar(&cfg.natsDown, "nats-down", 2*time.Second, "how long NATS stays stopped")
	fs.DurationVar(&cfg.deadline, "deadline", 5*time.Minute, "the whole run ends within this")
	replicaFlags := fs.String("replica-flags", "", "more flags for every ze process, space-separated (for example options that later runtime work adds)")
	fs.BoolVar(&cfg.check, "check", true, "exit 1 when a target of issue 27 is missed")
	fs.BoolVar(&cfg.keep, "keep", false, "keep the run's directory (configurations and logs)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	cfg.replicaFlags = strings.Fields(*replicaFlags)
	if cfg.replicas < 2 || cfg.workers < 1 || cfg.calls < 1 || cfg.faultAt >= cfg.loadFor || cfg.shortReadTimeout >= cfg.longThink || cfg.longThink >= cfg.clientTimeout {
		fmt.Fprintln(stderr, "deploytest: need -replicas ≥ 2, -workers and -calls ≥ 1, -fault-at < -load-for, -short-proxy-read-timeout < -long-think < -client-timeout")
		return 2
	}
	nginx, err := findNginx(cfg.nginx)
	if err != nil {
		if os.Getenv("CI") == "true" {
			fmt.Fprintf(stderr, "deploytest: FAIL: %v; under CI=true nginx is required (make deploy-test installs nginx-light)\n", err)
			return 1
		}
		fmt.Fprintf(stdout, "deploytest: SKIP: %v (apt-get install nginx-light, or -nginx PATH)\n", err)
		return 0
	}
	cfg.nginx = nginx
	for _, bin := range []string{cfg.ze, cfg.natsServer} {
		if _, err := os.Stat(bin); err != nil {
			fmt.Fprintf(stderr, "deploytest: %v (make deploy-test builds it)\n", err)
			return 2
		}
	}
	ctx, cancel := context.WithTimeout(ctx, cfg.deadline)
	defer cancel()
	rows, err := deploy(ctx, cfg, stdout)
	if len(rows) > 0 {
		fmt.Fprintln(stdout)
		printTable(stdout, rows, cfg.replicas)
	}
	if err != nil {
		fmt.Fprintf(stderr, "deploytest: %v\n", err)
		return 1
	}
	failed := failures(rows)
	for _, f := range failed {
		fmt.Fprintf(stdout, "MISSED TARGET: %s\n", f)
	}
	if len(failed) > 0 && cfg.check {
		return 1
	}
	return 0
}

func findNginx(flagged string) (string, error) {
	if flagged != "" {
		return flagged, nil
	}
	if p, err := exec.LookPath("nginx"); err == nil {
		return p, nil
	}
	if _, err := os.Stat("/usr/sbin/nginx"); err == nil {
		return "/usr/sbin/nginx", nil
	}
	return "", errors.New("no nginx in PATH or /usr/sbin")
}

// deploy starts the topology, runs every scenario with both protocols and
// stops everything.
func deploy(ctx context.Context, cfg config, log io.Writer) (rows []row, err error) {
	dir, err := os.MkdirTemp("", "deploytest-")
	if err != nil {
		return nil, err
	}
	if cfg.keep {
		fmt.Fprintf(log, "the run's directory (configurations, logs): %s\n", dir)
	} else {
		defer os.RemoveAll(dir)
		defer func() {
			if err != nil {
				err = fmt.Errorf("%w (-keep keeps the run's directory and its logs)", err)
			}
		}()
	}
	t := &topology{cfg: cfg, dir: dir}
	defer t.down()
	if err := t.up(); err != nil {
		return nil, err
	}
	fmt.Fprintf(log, "nats-server %s (JetStream, file store), %d replicas, nginx %s (proxy_read_timeout %v) and %s (%v), cutting proxy %s, one replica direct %s\n",
		t.natsURL(), len(t.replicas), t.main, cfg.readTimeout, t.short, cfg.shortReadTimeout, t.cut, t.single.addr)
	for _, s := range scenarios(cfg) {
		for _, protocol := range protocols {
			begin := time.Now()
			r, err := s.run(ctx, t, protocol)
			if err != nil {
				return rows, fmt.Errorf("%s, %s: %w", s.name, protocol, err)
			}
			rows = append(rows, r)
			fmt.Fprintf(log, "%s, %s: %d/%d completed in %v\n", s.name, protocol, r.completed, r.calls, time.Since(begin).Round(100*time.Millisecond))
			if s.heal != nil {
				if err := s.heal(t); err != nil {
					return rows, fmt.Errorf("%s: restoring the topology: %w", s.name, err)
				}
			}
		}
	}
	if n := t.cutter.cuts.Load(); n == 0 {
		return rows, errors.New("the cutting proxy cut no connection: its triggers no longer match the replies")
	}
	return rows, nil
}
