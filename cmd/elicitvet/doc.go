// Elicitvet runs elicitgen's schema checks as a go vet tool, so problems in
// //elicit:form structs show up in go vet, and in CI, before go generate
// runs:
//
//	go install github.com/go-elicit/elicit/cmd/elicitvet
//	go vet -vettool=$(which elicitvet) ./...
//
// or, the same, "elicitvet ./..." (elicitvet runs go vet with itself as the
// vet tool; any go vet flag, such as -tags or -json, may come first).
// Diagnostics are go vet's: file:line:col, relative to the current
// directory when that is shorter, as elicitgen prints them too.
//
// It reports on the field itself every problem elicitgen would report. It
// also regenerates each file elicitgen wrote, in memory and with
// elicitgen's own code, and reports at the form when the committed file
// differs, for edits go build does not catch (a new enum constant, a new
// title or doc comment, a changed tag):
//
//	peer.go:12:6: generated code for PeerForm is out of date (its schema in bgp_elicit.go differs): run go generate
//
// A form that has no generated code yet is reported as such, with its own
// problems, also when a handler already calls runtime.Elicit on it and the
// package does not compile for the missing methods alone:
//
//	login.go:9:6: no generated code for LoginForm (there is no auth_elicit.go): run go generate
//
// Enums of other packages: the package declaring an enum passes its
// constants' comments (the titles) to the packages that use it as analysis
// facts. go vet keys its cache of a package's result on the facts of its
// dependencies, so retitling a constant of another package re-runs the
// forms' package and reports its generated code out of date, on a warm
// cache, without go vet -a. go build does not notice such an edit: titles
// live only in comments, and the generated code (the old titles) still
// compiles. Run go vet with elicitvet, or regenerate and diff, in CI. What
// the build does catch, it names: a changed constant value, field or field
// type fails to compile at a guard whose error says to run go generate,
// and a changed struct tag fails at init.
//
// Editors and linters: gopls runs only the analyzers compiled into it, so it
// cannot show these diagnostics. For an editor, build golangci-lint with the
// module plugin in package github.com/go-elicit/elicit/gen/elicitform/golangci,
// which runs the same analyzer; its documentation shows the two
// configuration files.
//
// Usage:
//
//	elicitvet help           print this manual
//	elicitvet [flags] pkgs   run go vet -vettool=elicitvet [flags] pkgs
package main
