package cli

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-elicit/elicit/internal/testsupport/sdkfixture"
)

// buildZe builds examples/ze into a temporary directory.
func buildZe(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "ze")
	out, err := exec.Command("go", "build", "-o", bin, "github.com/go-elicit/elicit/examples/ze").CombinedOutput()
	if err != nil {
		t.Fatalf("building examples/ze: %v\n%s", err, out)
	}
	return bin
}

// TestDefaultProtocolIsNewest: without --protocol mcptest speaks the
// newest version the server offers. examples/ze offers 2026-07-28, so
// ze_add_peer's optional multi-select is asked and answered (2025-06-18,
// the old default, dropped it), and ze_execute can be called without the
// command it asks for (its inputSchema does not require it).
func TestDefaultProtocolIsNewest(t *testing.T) {
	ze := buildZe(t) + " -stdio"
	peer := `elicit-accept {"address":"192.0.2.1","asn":65001,"family":"ipv4-unicast","extra":["ipv6-unicast"],"passive":false}
elicit-accept {"confirm":true}
@ze_add_peer
`
	o := run(t, peer, "--stdio", ze, "--elicit", "--trace")
	if o.code != 0 || !strings.Contains(o.stdout, "families ipv4-unicast,ipv6-unicast") {
		t.Errorf("exit %d, stdout %q, stderr:\n%s", o.code, o.stdout, o.stderr)
	}
	if !strings.Contains(o.stderr, `"io.modelcontextprotocol/protocolVersion":"2026-07-28"`) || !strings.Contains(o.stderr, `"resultType":"input_required"`) {
		t.Errorf("not 2026-07-28:\n%s", o.stderr)
	}
	// The old default drops the multi-select: the same answer is refused.
	if o := run(t, peer, "--stdio", ze, "--elicit", "--protocol", "2025-06-18", "--trace"); o.code == 0 || !strings.Contains(o.stderr, `protocol 2025-06-18 cannot carry it`) {
		t.Errorf("2025-06-18: exit %d, stdout %q, stderr %q", o.code, o.stdout, o.stderr)
	}

	o = run(t, "tools\nelicit-accept {\"command\":\"show version\"}\n@ze_execute\n", "--stdio", ze, "--elicit")
	if o.code != 0 || !strings.Contains(o.stdout, "ze 1.0.0") {
		t.Errorf("ze_execute: exit %d, stdout %q, stderr %q", o.code, o.stdout, o.stderr)
	}
	for _, l := range strings.Split(o.stdout, "\n") {
		if strings.HasPrefix(l, "ze_execute\t") && (strings.Contains(l, `"required"`) || !strings.Contains(l, "Asked for when missing.")) {
			t.Errorf("ze_execute requires what it asks for: %s", l)
		}
	}
}

// TestDefaultProtocolFallsBack: a server that does not take 2026-07-28 (a
// stateful go-sdk server wants a session) gets the newest legacy version
// it accepts in initialize.
func TestDefaultProtocolFallsBack(t *testing.T) {
	url := sdkfixture.Serve(t, sdkfixture.Options{}).URL
	o := run(t, "elicit-accept {\"name\":\"Ada\"}\n@greet\n", "--url", url, "--elicit", "--trace")
	if o.code != 0 || o.stdout != "hello Ada\n" {
		t.Errorf("exit %d, stdout %q, stderr:\n%s", o.code, o.stdout, o.stderr)
	}
	if !strings.Contains(o.stderr, "2026-07-28 failed") || !strings.Contains(o.stderr, `"protocolVersion":"2025-11-25"`) {
		t.Errorf("no fallback to 2025-11-25 in:\n%s", o.stderr)
	}
}
