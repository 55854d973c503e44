package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/go-elicit/elicit/runtime/natscluster"
)

// envPrefix starts the environment variable of every flag (see the command's doc).
const envPrefix = "ZE_"

// setFromEnv sets each flag of fs that the command line left unset from
// its environment variable (ZE_ and the name in capitals, '-' as '_').
func setFromEnv(fs *flag.FlagSet, getenv func(string) string) error {
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	var err error
	fs.VisitAll(func(f *flag.Flag) {
		name := envPrefix + strings.ToUpper(strings.ReplaceAll(f.Name, "-", "_"))
		v := getenv(name)
		if given[f.Name] || v == "" || err != nil {
			return
		}
		if e := fs.Set(f.Name, v); e != nil {
			err = fmt.Errorf("%s=%q: %w", name, v, e)
		}
	})
	return err
}

// list splits a comma-separated flag value, dropping empty entries.
func list(s string) []string {
	var out []string
	for _, v := range strings.Split(s, ",") {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	return out
}

// readKeys reads a requestState key file: one key a line, 64 hex digits
// (32 bytes); blank lines and lines starting with '#' are skipped. It needs
// at least one key.
func readKeys(path string) ([][]byte, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var keys [][]byte
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		key, err := hex.DecodeString(line)
		if err != nil || len(key) != 32 {
			return nil, fmt.Errorf("%s:%d: a key is 64 hex digits (32 bytes), got %d characters", path, n, len(line))
		}
		keys = append(keys, key)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(keys) == 0 {
		return nil, fmt.Errorf("%s: no key (one a line, 64 hex digits)", path)
	}
	return keys, nil
}

// storageType reads -nats-storage.
func storageType(s string) (jetstream.StorageType, error) {
	switch s {
	case "file":
		return jetstream.FileStorage, nil
	case "memory":
		return jetstream.MemoryStorage, nil
	}
	return 0, fmt.Errorf("-nats-storage %q: file or memory", s)
}

// joinCluster connects to NATS at url and joins the replicas' cluster as
// replica. The connection reconnects for ever (a NATS restart must not end
// the replica); close stops both.
func joinCluster(ctx context.Context, url, replica string, sessionTTL time.Duration, st jetstream.StorageType, replicas int) (cl *natscluster.Cluster, closeAll func(), err error) {
	if replica == "" {
		return nil, nil, errors.New("-nats needs -replica: an id unique among the replicas")
	}
	nc, err := nats.Connect(url, nats.Name("ze-"+replica), nats.MaxReconnects(-1), nats.ReconnectWait(250*time.Millisecond))
	if err != nil {
		return nil, nil, fmt.Errorf("nats %s: %w", url, err)
	}
	cl, err = natscluster.New(ctx, natscluster.Options{Conn: nc, Replica: replica, SessionTTL: sessionTTL, Storage: st, Replicas: replicas})
	if err != nil {
		nc.Close()
		return nil, nil, err
	}
	return cl, func() { _ = cl.Close(); nc.Close() }, nil
}
