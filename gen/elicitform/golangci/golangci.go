// Package golangci is the elicitform analyzer (package gen/elicitform, the
// checks of elicitvet) as a golangci-lint v2 module plugin named
// "elicitform", after the analyzer.
//
// gopls runs only the analyzers compiled into it, and golangci-lint loads
// none at run time either: a module plugin is compiled into a custom
// golangci-lint binary. Describe that binary in .custom-gcl.yml at the
// root of your module:
//
//	version: v2.15.0
//	plugins:
//	  - module: github.com/go-elicit/elicit/gen/elicitform/golangci
//	    import: github.com/go-elicit/elicit/gen/elicitform/golangci
//	    version: vX.Y.Z # the elicit version in your go.mod: go list -m github.com/go-elicit/elicit
//
// Use the elicit version of your go.mod: the analyzer compares committed
// generated code with what its own generator writes. Build the binary with
// "golangci-lint custom" (it clones golangci-lint's git repository, so it
// needs git and network access), which writes ./custom-gcl, and enable the
// linter in .golangci.yml:
//
//	version: "2"
//	linters:
//	  enable:
//	    - elicitform
//	  settings:
//	    custom:
//	      elicitform:
//	        type: module
//	        description: checks //elicit:form structs and their generated code
//
// Then "./custom-gcl run ./..." reports what go vet -vettool=elicitvet
// reports, in golangci-lint's format:
//
//	peer/peer.go:9:6: generated code for Form is out of date (its schema in peer_elicit.go differs): run go generate (elicitform)
//
// Editors whose golangci-lint integration runs ./custom-gcl show them on
// save. The plugin takes no settings.
package golangci

import (
	"fmt"

	"github.com/golangci/plugin-module-register/register"
	"golang.org/x/tools/go/analysis"

	"github.com/go-elicit/elicit/gen/elicitform"
)

func init() { register.Plugin(elicitform.Analyzer.Name, New) }

// New returns the plugin for golangci-lint's settings of the linter (the
// settings key in .golangci.yml). It takes no settings: any given are an
// error naming them.
func New(settings any) (register.LinterPlugin, error) {
	if _, err := register.DecodeSettings[struct{}](settings); err != nil {
		return nil, fmt.Errorf("%s takes no settings: %w", elicitform.Analyzer.Name, err)
	}
	return plugin{}, nil
}

type plugin struct{}

// BuildAnalyzers returns elicit's analyzer.
func (plugin) BuildAnalyzers() ([]*analysis.Analyzer, error) {
	return []*analysis.Analyzer{elicitform.Analyzer}, nil
}

// GetLoadMode asks for type information, which the analyzer needs.
func (plugin) GetLoadMode() string { return register.LoadModeTypesInfo }
