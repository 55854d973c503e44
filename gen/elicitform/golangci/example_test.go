package golangci_test

import (
	"fmt"
	"log"

	"github.com/golangci/plugin-module-register/register"

	_ "github.com/go-elicit/elicit/gen/elicitform/golangci"
)

// golangci-lint finds the plugin by the linter name the import registers,
// which is the analyzer's, and builds its analyzers; the plugin takes no
// settings.
func Example() {
	newPlugin, err := register.GetPlugin("elicitform")
	if err != nil {
		log.Fatal(err)
	}
	plugin, err := newPlugin(nil)
	if err != nil {
		log.Fatal(err)
	}
	analyzers, err := plugin.BuildAnalyzers()
	if err != nil {
		log.Fatal(err)
	}
	for _, a := range analyzers {
		fmt.Println(a.Name, plugin.GetLoadMode())
	}
	if _, err := newPlugin(map[string]any{"strict": true}); err != nil {
		fmt.Println(err)
	}
	// Output:
	// elicitform typesinfo
	// elicitform takes no settings: decoding settings: json: unknown field "strict"
}
