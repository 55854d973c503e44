package gen

import (
	"bytes"
	"os"
	"testing"
)

// TestCommittedOutputIsFresh regenerates the repository's own generated
// file in memory and compares it with the committed bytes, so a stale file
// fails here as well as in make check-generated.
func TestCommittedOutputIsFresh(t *testing.T) {
	const dir, file = "internal/benchform", "internal/benchform/benchform_elicit.go"
	pkgs, err := Load(dir, []string{"."}, "")
	if err != nil {
		t.Fatal(err)
	}
	forms, diags := build(pkgs[0], nil)
	diags = append(diags, checkForms(forms)...)
	if len(diags) > 0 {
		t.Fatalf("diagnostics: %v", diags)
	}
	got, err := emitForms(pkgs[0].Pkg, forms)
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("stale generated file %s: run go generate ./...", file)
	}
}
