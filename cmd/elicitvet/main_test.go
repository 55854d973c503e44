package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestHelp: "elicitvet help" prints the analyzer's doc and flags, and
// succeeds, as -h does (singlechecker alone read "help" as a package).
func TestHelp(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "elicitvet")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	for _, arg := range []string{"help", "-h"} {
		out, err := exec.Command(bin, arg).CombinedOutput()
		if err != nil {
			t.Errorf("elicitvet %s: %v\n%s", arg, err, out)
		}
		for _, want := range []string{"elicit: check //elicit:form structs", "Usage: elicit [-flag] [package]", "-json"} {
			if !strings.Contains(string(out), want) {
				t.Errorf("elicitvet %s: output lacks %q:\n%s", arg, want, out)
			}
		}
	}
}
