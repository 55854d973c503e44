package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func writeFile(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "keys")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestReadKeys: the key file's format as the command's doc states it.
func TestReadKeys(t *testing.T) {
	k1, k2 := strings.Repeat("ab", 32), strings.Repeat("01", 32)
	keys, err := readKeys(writeFile(t, "# rotated 2026-12-01\n"+k1+"\n\n  "+k2+"  \n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(keys) != 2 || keys[0][0] != 0xab || keys[1][31] != 0x01 {
		t.Errorf("keys = %x", keys)
	}
	for _, tc := range []struct{ name, text, want string }{
		{"empty", "# nothing\n", "no key"},
		{"short", k1[:62] + "\n", ":1: a key is 64 hex digits"},
		{"not hex", k1 + "\n" + strings.Repeat("zz", 32) + "\n", ":2: a key is 64 hex digits"},
	} {
		if _, err := readKeys(writeFile(t, tc.text)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", tc.name, err, tc.want)
		}
	}
}

// TestZeClusterFlagsNeedKeysAndReplica: -nats without a shared key file
// or a replica id is refused with a message saying what is missing, before
// NATS is dialled.
func TestZeClusterFlagsNeedKeysAndReplica(t *testing.T) {
	keys := writeFile(t, strings.Repeat("ab", 32)+"\n")
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"-nats", "nats://127.0.0.1:1"}, 2, "-nats needs -request-state-keys"},
		{[]string{"-nats", "nats://127.0.0.1:1", "-request-state-keys", keys}, 1, "-nats needs -replica"},
		{[]string{"-request-state-keys", writeFile(t, "")}, 2, "-request-state-keys:"},
		{[]string{"-nats", "nats://127.0.0.1:1", "-request-state-keys", keys, "-replica", "r1", "-nats-storage", "disk"}, 2, `-nats-storage "disk": file or memory`},
	} {
		var stderr bytes.Buffer
		if code := run(context.Background(), tc.args, io.Discard, &stderr); code != tc.code || !strings.Contains(stderr.String(), tc.want) {
			t.Errorf("ze %q: exit %d, %q; want %d and %q", tc.args, code, stderr.String(), tc.code, tc.want)
		}
	}
}

// TestZeAllowedHostsFromEnvironment: ZE_ALLOWED_HOSTS reaches
// runtime.Options.AllowedHosts: a request naming the proxy's host is served
// instead of getting 403 "host not allowed", and any other name still gets 403.
func TestZeAllowedHostsFromEnvironment(t *testing.T) {
	t.Setenv("ZE_ALLOWED_HOSTS", "mcp.example.com, other.example.com")
	addr := runZe(t)
	// Its own transport, closed before ze shuts down (cleanups run last
	// first): a connection it dialed and never used would hold ze's
	// graceful shutdown for net/http's 5s grace of new connections.
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	client := &http.Client{Transport: tr}
	for host, want := range map[string]int{"mcp.example.com": http.StatusOK, "evil.example.com": http.StatusForbidden} {
		body := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
		req, err := http.NewRequest(http.MethodPost, "http://"+addr+"/mcp", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Host = host
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("Host %s: %d, want %d", host, resp.StatusCode, want)
		}
	}
}

// TestSetFromEnvCommandLineWins: a flag given on the command line is not
// overridden by its variable, and a bad value names the variable.
func TestSetFromEnvCommandLineWins(t *testing.T) {
	env := map[string]string{"ZE_ADDR": "127.0.0.1:9", "ZE_READ_TIMEOUT": "5s", "ZE_IDLE_TIMEOUT": "soon"}
	for _, tc := range []struct {
		args    []string
		wantErr string
	}{
		{[]string{"-addr", "127.0.0.1:1", "-idle-timeout", "1s"}, ""},
		{[]string{"-addr", "127.0.0.1:1"}, `ZE_IDLE_TIMEOUT="soon"`},
	} {
		fs := flag.NewFlagSet("ze", flag.ContinueOnError)
		fs.String("addr", "127.0.0.1:8080", "")
		fs.Duration("read-timeout", time.Second, "")
		fs.Duration("idle-timeout", time.Second, "")
		_ = fs.Parse(tc.args)
		err := setFromEnv(fs, func(k string) string { return env[k] })
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%q: err = %v, want %s", tc.args, err, tc.wantErr)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprint(fs.Lookup("addr").Value, " ", fs.Lookup("read-timeout").Value); got != "127.0.0.1:1 5s" {
			t.Errorf("addr, read-timeout = %s", got)
		}
	}
}
