//go:build unix

package main

import (
	"context"
	"crypto/rand"
	_ "embed"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// mcpConf is the location block of the nginx configuration, as
// docs/deploy.md shows it (TestDeployDocShowsTheNginxConfig).
//
//go:embed mcp.conf
var mcpConf string

// topology is what runs: nats-server, the replicas, one unclustered replica
// for the direct baseline, nginx with two servers (the long read timeout
// and the short one) and the connection-cutting proxy.
type topology struct {
	cfg      config
	dir      string
	keyFile  string
	natsPort int
	nats     *proc
	replicas []*replica
	single   *replica
	nginx    *proc
	// main and short are nginx's endpoints (proxy_read_timeout
	// cfg.readTimeout and cfg.shortReadTimeout); cut is the cutting
	// proxy's, in front of main.
	main, short, cut string
	cutter           *cutProxy
}

// replica is one examples/ze process; addr stays the same across restarts.
type replica struct {
	name string
	addr string
	p    *proc
}

func (t *topology) startNATS() error {
	p, _, err := start(t.dir, "nats-server", false, t.cfg.natsServer,
		"-a", "127.0.0.1", "-p", strconv.Itoa(t.natsPort), "-js", "-sd", filepath.Join(t.dir, "nats-store"))
	if err != nil {
		return err
	}
	t.nats = p
	return waitListening(context.Background(), "127.0.0.1:"+strconv.Itoa(t.natsPort), p)
}

func (t *topology) natsURL() string { return "nats://127.0.0.1:" + strconv.Itoa(t.natsPort) }

// startReplica starts (or restarts, on its address) a replica; clustered
// replicas join NATS, the single one does not.
func (t *topology) startReplica(r *replica, clustered bool) error {
	addr := r.addr
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	// The keep-alive stays below the shortest proxy read timeout, as
	// docs/deploy.md tells an operator to set it.
	args := []string{t.cfg.ze, "-addr", addr, "-request-state-keys", t.keyFile,
		"-stream-keep-alive", (t.cfg.shortReadTimeout / 2).String()}
	if clustered {
		args = append(args, "-nats", t.natsURL(), "-replica", r.name, "-nats-storage", "file")
	}
	args = append(args, t.cfg.replicaFlags...)
	p, line, err := start(t.dir, r.name, true, args...)
	if err != nil {
		return err
	}
	got, ok := strings.CutPrefix(line, "listening on http://")
	if !ok {
		p.kill()
		return fmt.Errorf("%s said %q (see %s.log)", r.name, line, r.name)
	}
	r.addr, r.p = strings.TrimSuffix(got, "/mcp"), p
	return nil
}

// nginxConf is the whole configuration the run gives nginx: mcp.conf
// included in two servers that differ in proxy_read_timeout only, and a
// header naming the replica that served each request (the run needs it to
// tell the calls whose handler was on a killed replica; it is not part of
// the documented configuration).
func (t *topology) nginxConf(mainPort, shortPort int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "worker_processes 1;\ndaemon off;\npid %s/nginx.pid;\nerror_log %s/nginx-error.log warn;\n", t.dir, t.dir)
	b.WriteString("events { worker_connections 1024; }\nhttp {\n    access_log off;\n")
	for _, d := range []string{"client_body", "proxy", "fastcgi", "uwsgi", "scgi"} {
		fmt.Fprintf(&b, "    %s_temp_path %s/nginx-tmp/%s;\n", d, t.dir, d)
	}
	b.WriteString("    upstream ze {\n")
	for _, r := range t.replicas {
		fmt.Fprintf(&b, "        server %s;\n", r.addr)
	}
	b.WriteString("        keepalive 32;\n    }\n")
	for _, s := range []struct {
		port    int
		timeout time.Duration
	}{{mainPort, t.cfg.readTimeout}, {shortPort, t.cfg.shortReadTimeout}} {
		fmt.Fprintf(&b, "    server {\n        listen 127.0.0.1:%d;\n        proxy_read_timeout %dms;\n", s.port, s.timeout.Milliseconds())
		b.WriteString("        add_header X-Deploytest-Upstream $upstream_addr always;\n")
		b.WriteString("        include " + filepath.Join(t.dir, "mcp.conf") + ";\n    }\n")
	}
	b.WriteString("}\n")
	return b.String()
}

func (t *topology) startNginx() error {
	mainPort, err := freePort()
	if err != nil {
		return err
	}
	shortPort, err := freePort()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(t.dir, "nginx-tmp"), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(t.dir, "mcp.conf"), []byte(mcpConf), 0o644); err != nil {
		return err
	}
	conf := filepath.Join(t.dir, "nginx.conf")
	if err := os.WriteFile(conf, []byte(t.nginxConf(mainPort, shortPort)), 0o644); err != nil {
		return err
	}
	p, _, err := start(t.dir, "nginx", false, t.cfg.nginx, "-p", t.dir, "-c", conf, "-e", filepath.Join(t.dir, "nginx-error.log"))
	if err != nil {
		return err
	}
	t.nginx = p
	t.main = fmt.Sprintf("http://127.0.0.1:%d/mcp", mainPort)
	t.short = fmt.Sprintf("http://127.0.0.1:%d/mcp", shortPort)
	for _, port := range []int{mainPort, shortPort} {
		if err := waitListening(context.Background(), "127.0.0.1:"+strconv.Itoa(port), p); err != nil {
			return err
		}
	}
	return nil
}

// up starts everything; down (deferred by the caller, also after an
// error) stops what started.
func (t *topology) up() error {
	key := make([]byte, 32)
	_, _ = rand.Read(key)
	t.keyFile = filepath.Join(t.dir, "request-state-keys")
	if err := os.WriteFile(t.keyFile, []byte("# the run's key, shared by every replica\n"+hex.EncodeToString(key)+"\n"), 0o600); err != nil {
		return err
	}
	var err error
	if t.natsPort, err = freePort(); err != nil {
		return err
	}
	if err := t.startNATS(); err != nil {
		return err
	}
	for i := range t.cfg.replicas {
		r := &replica{name: fmt.Sprintf("replica-%d", i+1)}
		t.replicas = append(t.replicas, r)
		if err := t.startReplica(r, true); err != nil {
			return err
		}
	}
	t.single = &replica{name: "single"}
	if err := t.startReplica(t.single, false); err != nil {
		return err
	}
	if err := t.startNginx(); err != nil {
		return err
	}
	t.cutter, err = newCutProxy(strings.TrimSuffix(strings.TrimPrefix(t.main, "http://"), "/mcp"))
	if err != nil {
		return err
	}
	t.cut = "http://" + t.cutter.addr() + "/mcp"
	return nil
}

func (t *topology) down() {
	if t.cutter != nil {
		t.cutter.close()
	}
	if t.nginx != nil {
		t.nginx.stop(syscall.SIGQUIT) // graceful: the workers end too
	}
	for _, r := range append(t.replicas, t.single) {
		if r != nil && r.p != nil {
			r.p.stop(syscall.SIGTERM)
		}
	}
	if t.nats != nil {
		t.nats.stop(syscall.SIGTERM)
	}
}

// restartReplicas restarts every clustered replica on its address: the
// clean slate after a scenario that may leave them unable to serve (a NATS
// restart today leaves the session bucket gone).
func (t *topology) restartReplicas() error {
	for _, r := range t.replicas {
		r.p.stop(syscall.SIGTERM)
		if err := t.startReplica(r, true); err != nil {
			return err
		}
	}
	return nil
}
