package gen_test

import (
	"errors"
	"fmt"

	"github.com/go-elicit/elicit/gen"
)

// A driver runs the generator on a package and reports its problems as
// the compiler would. The form in testdata/example misspells a tag key
// and holds a map, so Generate writes nothing and returns every problem.
func ExampleGenerate() {
	res, err := gen.Generate(gen.Config{Dir: "testdata/example"})
	var diags *gen.DiagnosticsError
	switch {
	case errors.As(err, &diags):
		for _, line := range diags.Lines {
			fmt.Println(line)
		}
	case err != nil:
		fmt.Println("error:", err)
	default:
		fmt.Println("wrote", res.Written)
	}
	// Output:
	// example.go:10:2: field Repository: unknown jsonschema tag key "maxLenght": did you mean "maxLength"
	// example.go:12:2: field Labels: map map[string]string is not allowed: elicitation forms are flat
}
